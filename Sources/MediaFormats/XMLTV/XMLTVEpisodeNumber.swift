/// An `<episode-num system=…>` as written, with the season and episode it encodes.
public struct XMLTVEpisodeNumber: Sendable, Hashable {
    /// `xmltv_ns`, `onscreen`, `dd_progid`…; `nil` when absent (the DTD default is `onscreen`).
    public var system: String?
    /// The text, such as `0.9.0/1` (xmltv_ns) or `S01E10` (onscreen).
    public var value: String

    public init(system: String? = nil, value: String) {
        self.system = system
        self.value = value
    }

    /// The season and episode this number encodes: read from `xmltv_ns` and `onscreen` numbers,
    /// `nil` for other systems or text that does not parse.
    public var seasonEpisode: XMLTVSeasonEpisode? {
        switch system {
        case "xmltv_ns": XMLTVSeasonEpisode(xmltvNS: value)
        case nil, "onscreen", "SxxExx": XMLTVSeasonEpisode(onscreen: value)
        default: nil
        }
    }
}
