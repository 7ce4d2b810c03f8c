import Foundation
import MediaFormats
import Testing

/// iptv-org's own parser (freearhey/iptv-playlist-parser) ships inputs with the results it
/// expects; every field it reports is compared with ours.
@Suite("M3U conformance with iptv-playlist-parser")
struct M3UIPTVPlaylistParserTests {
    static let cases = ["base", "comment", "duplicate", "kodi", "pipe", "url_tvg", "user_agent", "vlcopt"]

    @Test(arguments: cases)
    func matchesTheExpectedResult(name: String) throws {
        let input = try IPTVTestSupport.data("iptv-playlist-parser/tests/__data__/input/\(name).m3u")
        let expectedText = String(
            decoding: try IPTVTestSupport.data("iptv-playlist-parser/tests/__data__/expected/\(name).js"), as: UTF8.self
        )
        let expected = try #require(try IPTVTestSupport.javaScriptLiteral(expectedText) as? [String: Any])
        let playlist = M3UParser.parse(input)

        let expectedHeader = try #require((expected["header"] as? [String: Any])?["attrs"] as? [String: String])
        let guideURL = expectedHeader["x-tvg-url"] ?? expectedHeader["url-tvg"]
        #expect(playlist.header.tvgURLs == (guideURL.map { [$0] } ?? []))

        let items = try #require(expected["items"] as? [[String: Any]])
        #expect(playlist.entries.count == items.count)
        for (entry, item) in zip(playlist.entries, items) {
            let tvg = try #require(item["tvg"] as? [String: String])
            let http = try #require(item["http"] as? [String: String])
            let catchup = try #require(item["catchup"] as? [String: String])
            let group = try #require(item["group"] as? [String: String])
            let name = try #require(item["name"] as? String)
            // iptv-playlist-parser keeps a leading blank of the title (" name,with comma"); we trim.
            #expect(entry.title == name.trimmingCharacters(in: .whitespaces))
            #expect(entry.tvgID ?? "" == tvg["id"])
            #expect(entry.tvgName ?? "" == tvg["name"])
            #expect(entry.tvgLogo ?? "" == tvg["logo"])
            #expect(entry.tvgURL ?? "" == tvg["url"])
            #expect(entry.tvgRec ?? "" == tvg["rec"])
            #expect(entry.tvgShift ?? "" == tvg["shift"])
            // It lets #EXTGRP override group-title; we keep both and fall back the other way.
            #expect(entry.extGroup ?? entry.groupTitle ?? "" == group["title"])
            let headers = entry.httpHeaders
            #expect(headers.m3uValue(named: "Referer") ?? "" == http["referrer"])
            #expect(headers.m3uValue(named: "User-Agent") ?? "" == http["user-agent"])
            // It keeps the `|headers` suffix in the URL; we split it off into urlHeaders.
            let url = try #require(item["url"] as? String)
            #expect(url == entry.url || url.hasPrefix(entry.url + "|"))
            #expect(entry.timeshift ?? "" == item["timeshift"] as? String)
            #expect(entry.catchup ?? "" == catchup["type"])
            #expect(entry.catchupSource ?? "" == catchup["source"])
            #expect(entry.catchupDays ?? "" == catchup["days"])
            #expect(entry.extraAttributes.m3uValue(named: "lang") ?? "" == item["lang"] as? String)
        }
        if name == "base" {
            // The "====sudan====" separator and the second #EXTM3U are tolerated and reported.
            #expect(playlist.warnings.map(\.kind) == [.junkLine, .duplicateHeader])
            #expect(playlist.warnings.map(\.line) == [10, 11])
        } else if name == "comment" {
            #expect(playlist.warnings.map(\.kind) == [.junkLine])
            #expect(playlist.warnings.map(\.line) == [2])
        } else {
            #expect(playlist.warnings.isEmpty)
        }
    }
}

extension IPTVTestSupport {
    /// Reads the `export default { … }` JavaScript object literals of iptv-playlist-parser's
    /// expected results by rewriting them as JSON: quoting bare keys and converting `'…'` and
    /// template strings.
    static func javaScriptLiteral(_ source: String) throws -> Any {
        let scalars = Array(source.unicodeScalars)
        var index = scalars.firstIndex(of: "{") ?? 0
        var json = ""
        func isIdentifier(_ scalar: Unicode.Scalar) -> Bool {
            CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "$"
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "'" || scalar == "\"" || scalar == "`" {
                var value = ""
                index += 1
                while index < scalars.count, scalars[index] != scalar {
                    if scalars[index] == "\\", index + 1 < scalars.count {
                        index += 1
                        switch scalars[index] {
                        case "n": value += "\n"
                        case "r": value += "\r"
                        case "t": value += "\t"
                        default: value.unicodeScalars.append(scalars[index])
                        }
                    } else {
                        value.unicodeScalars.append(scalars[index])
                    }
                    index += 1
                }
                index += 1
                let encoded = try JSONSerialization.data(withJSONObject: [value])
                json += String(decoding: encoded.dropFirst().dropLast(), as: UTF8.self)
            } else if isIdentifier(scalar), !CharacterSet.decimalDigits.contains(scalar) {
                var identifier = ""
                while index < scalars.count, isIdentifier(scalars[index]) || scalars[index] == "-" {
                    identifier.unicodeScalars.append(scalars[index])
                    index += 1
                }
                json += ["true", "false", "null"].contains(identifier) ? identifier : "\"\(identifier)\""
            } else {
                if scalar == "}" || scalar == "]" {
                    // Drop a trailing comma before a closing bracket.
                    while let last = json.last, last.isWhitespace { json.removeLast() }
                    if json.last == "," { json.removeLast() }
                }
                json.unicodeScalars.append(scalar)
                index += 1
            }
        }
        return try JSONSerialization.jsonObject(with: Data(json.utf8))
    }
}
