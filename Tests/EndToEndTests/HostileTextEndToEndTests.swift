import Foundation
import Testing
import TunerTesting

/// An Xtream provider and its guide whose names, groups, titles and descriptions hold CR, LF,
/// NEL, U+2028/U+2029, NUL and other C0/C1 characters: every output the real binary writes still
/// has one entry per channel, read by third-party parsers, and `tv_validate_file` accepts the guide.
@Suite struct HostileTextEndToEndTests {
    /// The provider's channel names (one a channel), each with a kind of hostile character.
    static let names = [
        "A\r\n#EXTINF:-1,Injected\r\nhttp://evil/", "Line\nFeed", "Carriage\rReturn", "Next\u{85}Line",
        "Sep\u{2028}Line\u{2029}Para", "Nul\u{0}Byte", "Ctl\u{1}\u{1B}[31m\u{7F}\u{80}\u{9F}", "Tab\tQuote\"s",
        "Plain",
    ]
    /// What players see of each: every run of those characters one space. NUL is where the engines
    /// differ: SQLite's text ends there ("Nul"); PostgreSQL's text cannot hold it, and its import
    /// writes U+FFFD instead (PostgresItemImport), so the rest of the name stays.
    static var shown: [String] {
        [
            "A #EXTINF:-1,Injected http://evil/", "Line Feed", "Carriage Return", "Next Line", "Sep Line Para",
            EndToEndDatabase.isPostgres ? "Nul\u{FFFD}Byte" : "Nul", "Ctl [31m ", "Tab Quote\"s", "Plain",
        ]
    }
    /// A group that would add a line (no comma: `m3u_parser` reads a title from the first comma
    /// after the last `="`, whatever the quotes, so commas in attributes confuse it on their own).
    static let group = "News\r\n#EXTINF:-1 Group\u{85}\u{2028}Two"
    static let shownGroup = "News #EXTINF:-1 Group Two"

    struct Stream: Encodable {
        var num: Int
        var name: String
        var stream_id: Int
        var epg_channel_id: String
        var category_id = "1"
    }

    /// The panel's guide: titles and descriptions with raw line breaks, NEL, U+2028, a C0 control
    /// and character references to more of them.
    static func guide(now: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMddHHmmss"
        let start = format.string(from: now.addingTimeInterval(-1800)) + " +0000"
        let stop = format.string(from: now.addingTimeInterval(1800)) + " +0000"
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n"
        for index in names.indices {
            text += "<channel id=\"c\(index)\"><display-name>Ch\r\n\(index)\u{85}</display-name></channel>\n"
        }
        for index in names.indices {
            text += """
                <programme start="\(start)" stop="\(stop)" channel="c\(index)">\
                <title>Evening\r\n#EXTINF:-1,X\u{85}News &#x2028;\(index)</title>\
                <sub-title>Part\u{2029}one\u{1}</sub-title>\
                <desc>Line one\nLine two\u{2028}&#133;end</desc><category>Cat\u{9F}</category></programme>

                """
        }
        return text + "</tv>\n"
    }

    /// Reads the outputs the way other programs do: `m3u_parser` (PyPI) and a naive line split
    /// (Python's `splitlines`, which also breaks on NEL and U+2028) for the M3Us, `json` for the
    /// JSON answers, ElementTree for the HDHomeRun XML, and a scan for control characters.
    static let reader = #"""
        import base64, json, sys, unicodedata, xml.etree.ElementTree as ET
        from m3u_parser import M3uParser

        def unsafe(text):
            return [hex(ord(c)) for c in text if c != "\n" and (unicodedata.category(c) == "Cc" or c in "\u2028\u2029")]

        def strings(value):
            if isinstance(value, str): yield value
            elif isinstance(value, dict):
                for key, item in value.items(): yield key; yield from strings(item)
            elif isinstance(value, list):
                for item in value: yield from strings(item)

        report = {}
        for kind, path in zip(sys.argv[1::2], sys.argv[2::2]):
            text = open(path, encoding="utf-8", newline="").read()
            entry = {"unsafe": unsafe(text)}
            if kind == "m3u":
                parser = M3uParser()
                parser.parse_m3u(path, check_live=False)
                streams = parser.get_list()
                entry["names"] = [s["name"] for s in streams]
                entry["groups"] = sorted({s["category"] for s in streams})
                entry["urls"] = [s["url"] for s in streams]
                entry["extinf"] = sum(1 for line in text.splitlines() if line.startswith("#EXTINF"))
                entry["lines"] = len([line for line in text.splitlines() if line.strip()])
            elif kind == "json":
                value = json.loads(text)
                entry["count"] = len(value) if isinstance(value, list) else len(value.get("epg_listings", [1]))
                entry["unsafe"] += [u for s in strings(value) for u in unsafe(s)]
                # Short guides carry titles and descriptions in base64: players show them decoded.
                for listing in value.get("epg_listings", []) if isinstance(value, dict) else []:
                    for key in ("title", "description"):
                        entry["unsafe"] += unsafe(base64.b64decode(listing[key]).decode())
                entry["names"] = [v.get("name", v.get("GuideName")) for v in value] if isinstance(value, list) else []
            elif kind == "xml":
                root = ET.fromstring(text.encode())
                entry["texts"] = [e.text for e in root.iter() if e.text and e.text.strip()]
            else:
                entry["length"] = len(text)
            report[path.rsplit("/", 1)[-1]] = entry
        print(json.dumps(report))
        """#

    struct Read: Decodable {
        var unsafe: [String]
        var names: [String?]?
        var groups: [String?]?
        var urls: [String]?
        var extinf: Int?
        var lines: Int?
        var count: Int?
        var texts: [String]?
    }

    @Test("Hostile names and guide text from an Xtream provider: every output parses with one entry per channel")
    func hostileProviderTextNeverSplitsAnOutput() async throws {
        guard let tools = Tools.require(.curl, .tvValidateFile), let python = Self.pythonWithM3UParser() else {
            return
        }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let streams = Self.names.enumerated().map { index, name in
            Stream(num: index + 1, name: name, stream_id: 100 + index, epg_channel_id: "c\(index)")
        }
        let categories = [["category_id": "1", "category_name": Self.group]]
        let fake = try await XtreamFake.start(
            responses: [
                "get_live_categories": String(decoding: try JSONEncoder().encode(categories), as: UTF8.self),
                "get_live_streams": String(decoding: try JSONEncoder().encode(streams), as: UTF8.self),
                "get_vod_categories": "[]", "get_vod_streams": "[]", "get_series_categories": "[]", "get_series": "[]",
            ], guide: Self.guide(now: Date()))
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]
        func post(_ path: String, _ body: String) async throws -> [String: JSONValue] {
            let answer = try await Curl.fetch(tools[.curl], server.baseURL + path, options: json + ["--data", body])
            #expect([200, 201].contains(answer.status), "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
        }
        let source = Int(
            try #require(
                try await post(
                    "/api/v1/sources",
                    #"{"location":"\#(fake.baseURL)","kind":"xtream","username":"user","password":"pass"}"#
                )["id"]?.number))
        _ = try await post("/api/v1/sources/\(source)/refresh", "{}")
        _ = try await post("/api/v1/users", #"{"username":"viewer","password":"correct-horse"}"#)

        // The catalog keeps the provider's text as it came (search finds it); outputs clean it.
        // (All but NUL: SQLite's text ends there, so "Nul\0Byte" is stored as "Nul".)
        let listed = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/outputs/default/channels")
        let rows = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(listed.body))
        let stored = rows["channels"]?.map { $0["name"]?.string ?? "" } ?? []
        #expect(stored.count == Self.names.count, "\(rows)")
        for (index, name) in zip(stored.indices, stored) where !Self.names[index].contains("\u{0}") {
            #expect(name == Self.names[index])
        }

        let login = "username=viewer&password=correct-horse"
        let files: [(kind: String, name: String, url: String)] = [
            ("m3u", "profile.m3u", "/output/default.m3u"),
            ("m3u", "get.m3u", "/get.php?\(login)&type=m3u_plus&output=ts"),
            ("json", "live_streams.json", "/player_api.php?\(login)&action=get_live_streams"),
            ("json", "live_categories.json", "/player_api.php?\(login)&action=get_live_categories"),
            ("json", "short_epg.json", "/player_api.php?\(login)&action=get_short_epg&stream_id=ID"),
            ("json", "lineup.json", "/output/default/lineup.json"),
            ("json", "discover.json", "/discover.json"),
            ("xml", "device.xml", "/device.xml"),
            ("xmltv", "profile.xml", "/output/default.xml"),
            ("xmltv", "xmltv.xml", "/xmltv.php?\(login)"),
            ("html", "home.html", "/"),
        ]
        var arguments = [workspace.file("reader.py")]
        try Data(Self.reader.utf8).write(to: URL(fileURLWithPath: arguments[0]))
        var firstStreamID: Int?
        for file in files {
            var url = file.url
            if let id = firstStreamID { url = url.replacingOccurrences(of: "stream_id=ID", with: "stream_id=\(id)") }
            let answer = try await Curl.fetch(tools[.curl], server.baseURL + url)
            #expect(answer.status == 200, "\(url): \(answer.status)")
            let path = workspace.file(file.name)
            try Data(answer.body).write(to: URL(fileURLWithPath: path))
            arguments += [file.kind, path]
            if file.name == "live_streams.json" {
                let listed = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(answer.body))
                firstStreamID = listed.first?["stream_id"]?.number.map { Int($0) }
            }
        }
        let read = try await Subprocess.run(python, arguments, timeout: .seconds(120))
        #expect(read.succeeded, "\(read.transcript)")
        let report = try JSONDecoder().decode([String: Read].self, from: Data(read.output.utf8))
        for (name, entry) in report {
            #expect(entry.unsafe.isEmpty, "\(name) holds control or separator characters: \(entry.unsafe)")
        }

        // Both M3Us: one entry per channel for m3u_parser and for a naive line split, names as shown.
        let channelCount = Self.names.count
        for name in ["profile.m3u", "get.m3u"] {
            let m3u = try #require(report[name])
            // m3u_parser trims what it reads.
            let trimmed = Self.shown.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(m3u.names == trimmed, "\(name): \(m3u.names ?? [])")
            #expect(m3u.extinf == channelCount && m3u.lines == 1 + 2 * channelCount, "\(name)")
            #expect(m3u.groups == [Self.shownGroup], "\(name): \(m3u.groups ?? [])")
            #expect(m3u.urls?.allSatisfy { $0.hasPrefix(server.baseURL + "/") } == true, "\(name): \(m3u.urls ?? [])")
        }
        // The Xtream JSON and the HDHomeRun lineup: one entry per channel, names as shown.
        #expect(report["live_streams.json"]?.names == Self.shown)
        #expect(report["live_categories.json"]?.count == 1)
        #expect(report["short_epg.json"]?.count == 1)
        #expect(report["lineup.json"]?.names == Self.shown)
        #expect(report["device.xml"]?.texts?.isEmpty == false)

        // The guides: valid for the XMLTV project's validator, with the titles on one line.
        for name in ["profile.xml", "xmltv.xml"] {
            let path = workspace.file(name)
            let validated = try await Subprocess.run(
                tools[.tvValidateFile], [path],
                environment: Subprocess.childEnvironment().merging(["XMLTV_SUPPLEMENT": "/usr/share/xmltv"]) { $1 })
            #expect(validated.succeeded, "tv_validate_file \(name): \(validated.transcript)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("<title>Evening #EXTINF:-1,X News  0</title>"), "\(name): \(text.prefix(2000))")
            #expect(text.contains("<desc>Line one Line two end</desc>"), "\(name)")
            #expect(text.contains("<display-name>A #EXTINF:-1,Injected http://evil/</display-name>"), "\(name)")
        }
        // The web app's home page lists the group, on one line too.
        let home = try String(contentsOfFile: workspace.file("home.html"), encoding: .utf8)
        #expect(home.contains(Self.shownGroup), "\(home.prefix(3000))")
        _ = await server.stop()
        try await fake.shutdown()
    }

    /// python3 with `m3u_parser` (`pip install m3u-parser`, which `.ci/run` does), or nil with the
    /// test skipped (failed under `CI=true`, where every tool must be present).
    static func pythonWithM3UParser(sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        if let python = ExternalCommand.path(of: "python3"), ExternalTool.imports(python, "m3u_parser") {
            return python
        }
        let message = "python3 with m3u_parser is missing: pip install m3u-parser"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            print("skipped: \(message)")
        }
        return nil
    }
}
