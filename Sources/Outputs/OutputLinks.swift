/// The URLs an output hands to players: where Tuner is (as the player reached it) and the key
/// that opens the profile to other machines, when the request carried one.
public struct OutputLinks: Sendable, Hashable {
    /// `scheme://host[:port]`, no trailing slash.
    public var base: String
    public var profileID: String
    /// Added to every URL as `?key=` (players keep query strings), so a link copied off the
    /// lineup works from the machine that read it.
    public var key: String?

    public init(base: String, profileID: String, key: String?) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.profileID = profileID
        self.key = key
    }

    var query: String { key.map { "?key=" + $0 } ?? "" }

    /// The stream of the channel with `number`: the media itself, MPEG-TS.
    public func play(_ number: Int) -> String { "\(base)/play/\(profileID)/\(number)\(query)" }
    /// A past programme of the channel, as players' catch-up templates fill it in (`{utc}` the
    /// start, `{duration}` its length in seconds; TiviMate and Kodi know both).
    public func catchup(_ number: Int) -> String {
        "\(base)/play/\(profileID)/\(number)?" + (key.map { "key=\($0)&" } ?? "") + "utc={utc}&duration={duration}"
    }
    public var playlist: String { "\(base)/output/\(profileID).m3u\(query)" }
    public var guide: String { "\(base)/output/\(profileID).xml\(query)" }
    /// The HDHomeRun device's base: its files are under it. The key is a path segment here,
    /// because players append `/lineup.json` and the like to it.
    public var deviceBase: String {
        "\(base)/output/\(profileID)" + (key.map { "/key/" + $0 } ?? "")
    }
}
