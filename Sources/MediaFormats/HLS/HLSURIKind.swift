/// What a URI in a playlist points at, so a caller rewriting URIs can treat each kind differently
/// (for example, keep encryption keys out of a disk cache).
///
/// A struct with static members rather than an enum, so that adding a kind never breaks a caller's
/// `switch`.
public struct HLSURIKind: Sendable, Hashable, CustomStringConvertible {
    private enum Base: Sendable, Hashable {
        case segment, playlist, key, map, part, other
    }

    private let base: Base

    private init(_ base: Base) { self.base = base }

    /// A media segment: the URI line after `#EXTINF`.
    public static let segment = HLSURIKind(.segment)
    /// Another playlist: a variant (`#EXT-X-STREAM-INF`, `#EXT-X-I-FRAME-STREAM-INF`), a rendition
    /// (`#EXT-X-MEDIA`), a rendition report, or an interstitial asset (`X-ASSET-URI`).
    public static let playlist = HLSURIKind(.playlist)
    /// A decryption key (`#EXT-X-KEY`, `#EXT-X-SESSION-KEY`).
    public static let key = HLSURIKind(.key)
    /// A Media Initialization Section (`#EXT-X-MAP`, or a `TYPE=MAP` preload hint).
    public static let map = HLSURIKind(.map)
    /// A low-latency partial segment (`#EXT-X-PART`, or a `TYPE=PART` preload hint).
    public static let part = HLSURIKind(.part)
    /// Anything else: session data, a content-steering manifest, an interstitial asset list.
    public static let other = HLSURIKind(.other)

    public var description: String {
        switch base {
        case .segment: "segment"
        case .playlist: "playlist"
        case .key: "key"
        case .map: "map"
        case .part: "part"
        case .other: "other"
        }
    }
}
