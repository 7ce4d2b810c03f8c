/// Season, episode and part numbers, 1-based as people count them.
///
/// `xmltv_ns` numbers are zero-based `season.episode.part`, each optionally `/total`, any part
/// possibly empty: `0.9.0/1` is season 1, episode 10, part 1 of 1; `.3.` is episode 4.
public struct XMLTVSeasonEpisode: Sendable, Hashable {
    public var season: Int?
    public var totalSeasons: Int?
    public var episode: Int?
    public var totalEpisodes: Int?
    public var part: Int?
    public var totalParts: Int?

    public init(
        season: Int? = nil, totalSeasons: Int? = nil, episode: Int? = nil,
        totalEpisodes: Int? = nil, part: Int? = nil, totalParts: Int? = nil
    ) {
        self.season = season
        self.totalSeasons = totalSeasons
        self.episode = episode
        self.totalEpisodes = totalEpisodes
        self.part = part
        self.totalParts = totalParts
    }

    /// Reads an `xmltv_ns` number; `nil` when it holds neither a season nor an episode.
    public init?(xmltvNS text: String) {
        let fields = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        func numbers(_ index: Int) -> (Int?, Int?) {
            guard index < fields.count else { return (nil, nil) }
            let halves = fields[index].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let number = halves.first.flatMap { Int($0.trimmingXMLTVSpaces()) }.flatMap { $0 >= 0 ? $0 + 1 : nil }
            let total = halves.count > 1 ? Int(halves[1].trimmingXMLTVSpaces()).flatMap { $0 > 0 ? $0 : nil } : nil
            return (number, total)
        }
        (season, totalSeasons) = numbers(0)
        (episode, totalEpisodes) = numbers(1)
        (part, totalParts) = numbers(2)
        if season == nil, episode == nil { return nil }
    }

    /// Reads an on-screen number such as `S01E05`, `S1 E5`, `s01.e05` or `E12`.
    public init?(onscreen text: String) {
        var season: Int?
        var episode: Int?
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first {
            let letter = first | 0x20
            bytes = bytes.dropFirst()
            guard letter == UInt8(ascii: "s") || letter == UInt8(ascii: "e") else { continue }
            var value = 0
            var digits = 0
            while let digit = bytes.first, digit &- 0x30 < 10, digits < 6 {
                value = value * 10 + Int(digit &- 0x30)
                digits += 1
                bytes = bytes.dropFirst()
            }
            guard digits > 0 else { continue }
            if letter == UInt8(ascii: "s"), season == nil, episode == nil {
                season = value
            } else if letter == UInt8(ascii: "e"), episode == nil {
                episode = value
            }
        }
        guard season != nil || episode != nil else { return nil }
        self.init(season: season, episode: episode)
    }
}

extension Substring {
    func trimmingXMLTVSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
