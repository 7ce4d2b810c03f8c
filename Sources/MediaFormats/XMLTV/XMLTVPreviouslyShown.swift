/// `<previously-shown start=… channel=…/>`: the programme is a repeat, possibly of a known showing.
public struct XMLTVPreviouslyShown: Sendable, Hashable {
    /// When it was first shown, if the guide says.
    public var start: XMLTVDate?
    /// Where it was first shown, if the guide says.
    public var channel: String?

    public init(start: XMLTVDate? = nil, channel: String? = nil) {
        self.start = start
        self.channel = channel
    }
}
