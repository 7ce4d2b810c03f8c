/// One `name=value` pair from an M3U line: an `#EXTINF`/`#EXTM3U` attribute, a `#EXTVLCOPT` or
/// `#KODIPROP` option, or an HTTP header. Kept in an array rather than a dictionary because the
/// order the playlist used is part of what a writer should reproduce.
public struct M3UAttribute: Sendable, Hashable {
    /// The name as the playlist spelled it (case preserved; lookups ignore ASCII case).
    public var name: String
    /// The value with any surrounding quotes removed.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == M3UAttribute {
    /// The value of the first pair whose name matches `name`, ignoring ASCII case, because
    /// playlists in the wild write `tvg-ID`, `User-Agent` and `user-agent` interchangeably.
    public func m3uValue(named name: String) -> String? {
        first { M3UText.equalsIgnoringASCIICase($0.name, name) }?.value
    }
}
