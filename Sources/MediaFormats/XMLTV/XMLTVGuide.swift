/// A whole parsed guide, for callers that can afford to hold it in memory.
///
/// Large guides should be read with ``XMLTVParser/feed(_:onEvent:)`` or
/// ``XMLTVParser/events(in:options:)``, which never hold more than one programme.
public struct XMLTVGuide: Sendable, Hashable {
    /// Channels in guide order.
    public var channels: [XMLTVChannel]
    /// Programmes in guide order.
    public var programmes: [XMLTVProgramme]
    /// What the parser tolerated or skipped.
    public var warnings: [XMLTVWarning]

    public init(channels: [XMLTVChannel] = [], programmes: [XMLTVProgramme] = [], warnings: [XMLTVWarning] = []) {
        self.channels = channels
        self.programmes = programmes
        self.warnings = warnings
    }
}
