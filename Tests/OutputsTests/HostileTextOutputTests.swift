import Catalog
import Foundation
import MediaFormats
import Testing

@testable import Outputs

/// Provider names, groups, titles, descriptions and logos holding line breaks and other control
/// characters: every writer still gives one entry per channel and no such character.
@Suite struct HostileTextOutputTests {
    /// Each listed kind of character, and a name that would add an entry to a naive M3U.
    static let hostile = [
        "A\r\n#EXTINF:-1,Injected\r\nhttp://evil/", "Line\nFeed", "Carriage\rReturn", "Next\u{85}Line",
        "Line\u{2028}Separator", "Para\u{2029}Separator", "Nul\u{0}Byte", "Bell\u{7}Vtab\u{B}FF\u{C}Esc\u{1B}",
        "Del\u{7F}C1\u{80}\u{9F}", "Tab\there", #"Quote " inside"#,
    ]

    static var channels: [OutputChannel] {
        hostile.enumerated().map { index, name in
            OutputChannel(
                number: index + 1, name: name,
                item: CatalogItem(
                    id: Int64(index + 10), sourceID: 1, kind: .live, identity: "c\(index)", name: name,
                    group: "Group\r\n#EXTINF:-1,\(index)\u{2028}", logo: "http://logo/\(index)\n.png",
                    url: "http://h/\(index).ts", catchup: CatalogCatchup(type: "default", days: 3)))
        }
    }

    static let links = OutputLinks(base: "http://10.0.0.2:8080", profileID: "default", key: "k")

    /// Whether `text` holds a control or separator character other than the writer's own `\n`.
    static func holdsUnsafe(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && OutputText.isUnsafe($0) }
    }

    /// The lines a naive player sees: Python's `splitlines` breaks on all of these.
    static func naiveLines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: true) { character in
            character.unicodeScalars.contains { OutputText.isUnsafe($0) }
        }
    }

    @Test func theProfileM3UHasOneEntryPerChannel() {
        let text = M3UOutput(links: Self.links, logo: { $0.logo }).string(for: Self.channels)
        #expect(!Self.holdsUnsafe(text), "\(text)")
        let lines = Self.naiveLines(text)
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == Self.hostile.count, "\(text)")
        #expect(lines.count == 1 + 2 * Self.hostile.count, "\(text)")
        let parsed = M3UParser.parse(text)
        #expect(parsed.entries.count == Self.hostile.count)
        #expect(parsed.entries.first?.title == "A #EXTINF:-1,Injected http://evil/")
        #expect(parsed.entries.first?.groupTitle == "Group #EXTINF:-1,0 ")
        #expect(parsed.entries.map(\.url) == Self.channels.map { Self.links.play($0.number) })
        #expect(parsed.entries.last?.tvgName == "Quote ' inside" && parsed.entries.last?.title == #"Quote " inside"#)
        #expect(!text.contains(#"tvg-name='"#), "attribute values never need single quotes")
    }

    @Test func theXtreamM3UHasOneEntryPerChannel() {
        let output = XtreamOutput(base: "http://10.0.0.2:8080", username: "u", password: "p", logo: { $0.logo })
        let text = output.playlist(Self.channels, guideURL: "http://10.0.0.2:8080/xmltv.php?username=u&password=p")
        #expect(!Self.holdsUnsafe(text), "\(text)")
        let lines = Self.naiveLines(text)
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == Self.hostile.count, "\(text)")
        #expect(lines.count == 1 + 2 * Self.hostile.count, "\(text)")
        let parsed = M3UParser.parse(text)
        #expect(parsed.entries.count == Self.hostile.count)
        #expect(parsed.entries.map(\.url) == Self.channels.map { output.streamURL($0) })
        #expect(parsed.entries.first?.title == "A #EXTINF:-1,Injected http://evil/")
    }

    @Test func theXtreamJSONCarriesNoControlOrSeparatorCharacter() throws {
        let output = XtreamOutput(base: "http://10.0.0.2:8080", username: "u", password: "p", logo: { $0.logo })
        let channel = Self.channels[0]
        let programme = GuideProgramme(
            id: 1, epgID: "x", start: 0, stop: 3600, title: "Title\u{85}Two", description: "Desc\r\nmore\u{2029}")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let answers: [Data] = [
            try encoder.encode(output.categories(Self.channels)),
            try encoder.encode(output.liveStreams(Self.channels, category: nil)),
            try encoder.encode(output.vodStreams(Self.channels, category: nil)),
            try encoder.encode(output.series(Self.channels, category: nil)),
            try encoder.encode(
                output.seriesInfo(
                    channel,
                    episodes: [
                        CatalogEpisode(id: 1, seriesID: 10, season: 1, episode: 1, title: "E\u{2028}1", url: "u")
                    ])),
            try encoder.encode(
                output.vodInfo(channel, details: CatalogMovieDetails(plot: "Plot\nline\u{85}", cast: "A\u{0}B"))),
        ]
        for data in answers {
            let text = String(decoding: data, as: UTF8.self)
            // Neither raw nor escaped: a JSON `\n` or `\u0085` would still reach the player's text.
            #expect(!Self.holdsUnsafe(text) && !text.contains("\\n") && !text.contains("\\r"), "\(text)")
            #expect(!text.contains("\\u00") && !text.contains("\\t"), "\(text)")
            _ = try JSONSerialization.jsonObject(with: data)
        }
        let streams = output.liveStreams(Self.channels, category: nil)
        #expect(streams.count == Self.hostile.count && streams[0].name == "A #EXTINF:-1,Injected http://evil/")
        #expect(output.categories(Self.channels).allSatisfy { !Self.holdsUnsafe($0.category_name) })
        // Listings travel in base64: what players decode is clean too.
        let listing = try #require(
            output.listings([programme], of: channel, now: 0, limit: nil, table: true).epg_listings.first)
        #expect(Data(base64Encoded: listing.title).map { String(decoding: $0, as: UTF8.self) } == "Title Two")
        #expect(Data(base64Encoded: listing.description).map { String(decoding: $0, as: UTF8.self) } == "Desc more ")
    }

    @Test func theXMLTVCarriesNoControlOrSeparatorCharacter() {
        let output = XMLTVOutput(placeholders: true, logo: { $0.logo })
        let programmes = [
            GuideProgramme(
                id: 1, epgID: "x", start: 0, stop: 3600, title: "T\u{85}itle\u{0}", subtitle: "Sub\u{2028}",
                description: "Para one.\r\n\r\nPara\u{2029}two\u{1B}[31m", category: "Cat\u{9F}", icon: "http://i/\n")
        ]
        var text = output.header() + output.channels(Self.channels)
        text += output.programmes(programmes, of: Self.channels[0], window: 0..<3600)
        text += output.programmes([], of: Self.channels[1], window: 0..<3600)
        text += output.footer()
        #expect(!Self.holdsUnsafe(text), "\(text)")
        #expect(text.contains("<title>T itle </title>") && text.contains("<desc>Para one. Para two [31m</desc>"))
        #expect(text.contains("<display-name>A #EXTINF:-1,Injected http://evil/</display-name>"))
        #expect(text.contains("<title>Line Feed</title>"), "placeholders use the cleaned name")
        #expect(text.contains("<display-name>Quote &quot; inside</display-name>"))
        #expect(XMLTVOutput.escaped("\u{FFFE}a\u{FFFF}<") == "a&lt;")
    }

    @Test func theHDHomeRunFilesCarryNoControlOrSeparatorCharacter() throws {
        let profile = OutputProfile(id: "default", name: "Home\u{85}Tuner\r\n", deviceID: 0x1234_5678, accessKey: "k")
        let device = HDHomeRunDevice(profile: profile, links: Self.links)
        let json = device.lineupJSON(Self.channels)
        #expect(!Self.holdsUnsafe(json) && !json.contains("\\n") && !json.contains("\\u00"), "\(json)")
        let lineup = try JSONDecoder().decode([HDHomeRunDevice.LineupEntry].self, from: Data(json.utf8))
        #expect(lineup.count == Self.hostile.count && lineup[0].GuideName == "A #EXTINF:-1,Injected http://evil/")
        #expect(device.lineup(Self.channels) == lineup)
        #expect(device.discover.FriendlyName == "Home Tuner ")
        #expect(!Self.holdsUnsafe(device.deviceXML.replacingOccurrences(of: "\n", with: "")))
        #expect(device.deviceXML.contains("<friendlyName>Home Tuner </friendlyName>"))
    }
}
