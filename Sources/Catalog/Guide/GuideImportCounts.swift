/// How many channels and programmes a guide import stored.
public struct GuideImportCounts: Sendable, Hashable, Codable {
    public var channels = 0
    public var programmes = 0
    /// Programmes skipped: already over before the retention window, or without a usable time.
    public var skipped = 0

    public init(channels: Int = 0, programmes: Int = 0, skipped: Int = 0) {
        self.channels = channels
        self.programmes = programmes
        self.skipped = skipped
    }
}
