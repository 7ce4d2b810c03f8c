import MediaFormats

/// Turns playlist entries into catalog items: live channels, movies, and episodes of series.
///
/// Xtream-style playlists put movies under `/movie/` and episodes under `/series/`, with the
/// season and episode only in the title (`Show | EN | S01 E02`), so that is what is read here.
public struct M3UItemMapper: Sendable {
    /// Playlist-wide defaults from `#EXTM3U`.
    public var header: M3UPlaylistHeader?

    public init(header: M3UPlaylistHeader? = nil) {
        self.header = header
    }

    /// What an entry becomes.
    public enum Mapped: Sendable, Hashable {
        case item(CatalogItemDraft)
        case episode(CatalogEpisodeDraft, series: CatalogItemDraft)
    }

    public func map(_ entry: M3UEntry) -> Mapped {
        let name = entry.displayName
        let group = entry.groups.first
        let headers = entry.httpHeaders.map { CatalogHeader(name: $0.name, value: $0.value) }
        switch Self.kind(ofURL: entry.url) {
        case .movie:
            return .item(
                CatalogItemDraft(
                    kind: .movie, name: name, group: group, tvgID: entry.tvgID.nonEmpty,
                    tvgName: entry.tvgName.nonEmpty,
                    logo: entry.tvgLogo.nonEmpty, url: entry.url, headers: headers
                ))
        case .series:
            let parsed = Self.seriesEpisode(inTitle: name)
            let series = CatalogItemDraft(
                kind: .series, name: parsed.series, group: group, logo: entry.tvgLogo.nonEmpty)
            let episode = CatalogEpisodeDraft(
                season: parsed.season, episode: parsed.episode, title: name, url: entry.url, headers: headers,
                duration: entry.duration > 0 ? entry.duration : nil
            )
            return .episode(episode, series: series)
        default:
            let catchupType = entry.catchup.nonEmpty ?? header?.catchup.nonEmpty
            let catchupSource = entry.catchupSource.nonEmpty ?? header?.catchupSource.nonEmpty
            let catchupDays = entry.catchupDayCount ?? header?.catchupDayCount
            var catchup: CatalogCatchup?
            if catchupType != nil || catchupSource != nil {
                catchup = CatalogCatchup(type: catchupType ?? "default", days: catchupDays, source: catchupSource)
            }
            return .item(
                CatalogItemDraft(
                    kind: .live, name: name, group: group, tvgID: entry.tvgID.nonEmpty, tvgName: entry.tvgName.nonEmpty,
                    logo: entry.tvgLogo.nonEmpty, number: entry.channelNumber.nonEmpty, url: entry.url,
                    headers: headers,
                    catchup: catchup, tvgShift: entry.tvgShiftHours ?? header?.tvgShiftHours, isRadio: entry.isRadio
                ))
        }
    }

    /// `/movie/` or `/series/` as a path segment marks VOD; anything else is live.
    static func kind(ofURL url: String) -> CatalogItemKind {
        // Scanning bytes beats building a URL: this runs for every entry of 200,000-line playlists.
        let bytes = url.utf8
        var segmentStart = bytes.startIndex
        var index = bytes.startIndex
        var slashes = 0
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                slashes += 1
                // Skip the scheme's `//` and the host.
                if slashes > 3 {
                    let segment = bytes[segmentStart..<index]
                    if segment.elementsEqual("movie".utf8) { return .movie }
                    if segment.elementsEqual("series".utf8) { return .series }
                }
                segmentStart = bytes.index(after: index)
            } else if bytes[index] == UInt8(ascii: "?") {
                break
            }
            index = bytes.index(after: index)
        }
        return .live
    }

    /// Splits `Show | EN | S01 E02` into the series name, season and episode. Titles without an
    /// `SnnEnn` marker are a series of their own with unnumbered episodes.
    static func seriesEpisode(inTitle title: String) -> (series: String, season: Int?, episode: Int?) {
        // Bytes rather than characters: this runs for every episode of big playlists, and the
        // marker is ASCII.
        let bytes = Array(title.utf8)
        var index = bytes.count - 1
        while index >= 0 {
            let byte = bytes[index]
            if byte | 0x20 == UInt8(ascii: "s"), index == 0 || !isASCIILetter(bytes[index - 1]) {
                var cursor = index + 1
                let season = number(bytes, &cursor)
                while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") { cursor += 1 }
                if let season, cursor < bytes.count, bytes[cursor] | 0x20 == UInt8(ascii: "e") {
                    cursor += 1
                    if let episode = number(bytes, &cursor) {
                        var end = index
                        while end > 0,
                            [
                                UInt8(ascii: " "), UInt8(ascii: "|"), UInt8(ascii: "-"), UInt8(ascii: "\t"),
                                UInt8(ascii: "."),
                            ].contains(bytes[end - 1])
                        {
                            end -= 1
                        }
                        let name = String(decoding: bytes[0..<end], as: UTF8.self)
                        return (name.isEmpty ? title : name, season, episode)
                    }
                }
            }
            index -= 1
        }
        return (title, nil, nil)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func number(_ bytes: [UInt8], _ cursor: inout Int) -> Int? {
        var value = 0
        var digits = 0
        while cursor < bytes.count, bytes[cursor] &- 0x30 < 10, digits < 5 {
            value = value * 10 + Int(bytes[cursor] &- 0x30)
            digits += 1
            cursor += 1
        }
        return digits > 0 ? value : nil
    }
}

extension Optional where Wrapped == String {
    /// `nil` for absent and empty values alike: playlists write `tvg-id=""` to mean "none".
    var nonEmpty: String? {
        guard let self, !self.isEmpty else { return nil }
        return self
    }
}
