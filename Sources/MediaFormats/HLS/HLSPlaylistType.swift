/// The value of `#EXT-X-PLAYLIST-TYPE`: whether a media playlist can still change.
///
/// A struct with static members rather than an enum, so that a future type never breaks a caller's
/// `switch`; unknown values keep their text in `rawValue`.
public struct HLSPlaylistType: Sendable, Hashable, CustomStringConvertible {
    /// The text as written in the playlist.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The playlist never changes.
    public static let vod = HLSPlaylistType(rawValue: "VOD")
    /// Segments are only ever appended.
    public static let event = HLSPlaylistType(rawValue: "EVENT")

    public var description: String { rawValue }
}
