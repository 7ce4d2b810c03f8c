/// An `<icon src=… width=… height=…/>` of a channel, programme or rating.
public struct XMLTVIcon: Sendable, Hashable {
    /// The image URL (often relative in guides made for one app).
    public var src: String
    /// Pixels, when the guide says.
    public var width: Int?
    /// Pixels, when the guide says.
    public var height: Int?

    public init(src: String, width: Int? = nil, height: Int? = nil) {
        self.src = src
        self.width = width
        self.height = height
    }
}
