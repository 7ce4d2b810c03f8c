/// What is on a channel now and what comes next.
public struct GuideNowNext: Sendable, Hashable, Codable {
    /// The catalog item (live channel).
    public var itemID: Int64
    public var now: GuideProgramme?
    public var next: GuideProgramme?

    public init(itemID: Int64, now: GuideProgramme?, next: GuideProgramme?) {
        self.itemID = itemID
        self.now = now
        self.next = next
    }
}
