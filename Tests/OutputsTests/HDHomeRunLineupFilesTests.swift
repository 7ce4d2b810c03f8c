import Catalog
import Foundation
import MediaFormats
import Testing

@testable import Outputs

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `lineup.xml` and `lineup.m3u`, the other forms of the lineup real HDHomeRun devices serve:
/// the same channels, numbers and keyed URLs as `lineup.json`, one entry per channel whatever
/// the provider put in a name.
@Suite struct HDHomeRunLineupFilesTests {
    static let device = HDHomeRunDevice(
        profile: OutputProfile(id: "default", name: "Home", deviceID: 0x1234_5678, accessKey: "k"),
        links: HostileTextOutputTests.links)

    /// The `<Program>`s of a `lineup.xml`, read by libxml2 (Foundation's `XMLParser`): each
    /// element's text by name.
    final class Programs: NSObject, XMLParserDelegate {
        var programs: [[String: String]] = []
        var text = ""
        var root: String?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = name }
            if name == "Program" { programs.append([:]) }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard name != "Program", name != "Lineup", !programs.isEmpty else { return }
            programs[programs.count - 1][name] = text
        }
    }

    @Test func lineupXMLListsTheLineupJSONsChannels() throws {
        let channels = HostileTextOutputTests.channels
        let xml = Self.device.lineupXML(channels)
        #expect(!HostileTextOutputTests.holdsUnsafe(xml), "\(xml)")
        let parser = XMLParser(data: Data(xml.utf8))
        let programs = Programs()
        parser.delegate = programs
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(programs.root == "Lineup")
        let json = try JSONDecoder().decode(
            [HDHomeRunDevice.LineupEntry].self, from: Data(Self.device.lineupJSON(channels).utf8))
        #expect(programs.programs.count == json.count && json.count == channels.count)
        for (program, entry) in zip(programs.programs, json) {
            #expect(program["GuideNumber"] == entry.GuideNumber)
            #expect(program["GuideName"] == entry.GuideName)
            #expect(program["URL"] == entry.URL && entry.URL.hasSuffix("?key=k"))
            #expect(program["HD"] == String(entry.HD) && program["Favorite"] == String(entry.Favorite))
        }
        #expect(programs.programs.last?["GuideName"] == #"Quote " inside"#)
    }

    @Test func lineupM3UHasOneEntryPerChannel() {
        let channels = HostileTextOutputTests.channels
        let text = Self.device.lineupM3U(channels)
        #expect(text.hasPrefix("#EXTM3U\n"))
        #expect(!HostileTextOutputTests.holdsUnsafe(text), "\(text)")
        let lines = HostileTextOutputTests.naiveLines(text)
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == channels.count, "\(text)")
        #expect(lines.count == 1 + 2 * channels.count, "\(text)")
        let parsed = M3UParser.parse(text)
        #expect(parsed.entries.map(\.url) == channels.map { HostileTextOutputTests.links.play($0.number) })
        #expect(parsed.entries.map(\.channelNumber) == channels.map { String($0.number) })
        #expect(parsed.entries.map(\.tvgID) == channels.map(\.guideID))
        #expect(parsed.entries.first?.title == "A #EXTINF:-1,Injected http://evil/")
    }

    @Test func anEmptyLineupIsStillADocument() {
        #expect(Self.device.lineupXML([]) == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Lineup>\n</Lineup>\n")
        #expect(Self.device.lineupM3U([]) == "#EXTM3U\n")
    }
}
