/// A whole parsed playlist, for callers that can afford to hold every entry in memory.
///
/// Large playlists should be read with ``M3UParser/feed(_:onEvent:)`` or
/// ``M3UParser/events(in:options:)`` instead, which never hold more than one entry.
public struct M3UPlaylist: Sendable, Hashable {
    /// The `#EXTM3U` attributes; empty when the playlist had no header line.
    public var header: M3UPlaylistHeader
    /// The entries in playlist order.
    public var entries: [M3UEntry]
    /// What the parser tolerated, in line order. Not part of what the writer reproduces.
    public var warnings: [M3UWarning]

    public init(header: M3UPlaylistHeader = .init(), entries: [M3UEntry] = [], warnings: [M3UWarning] = []) {
        self.header = header
        self.entries = entries
        self.warnings = warnings
    }
}
