import Foundation
import Testing
import TunerTesting

/// The main port's root HDHomeRun files beyond loopback: keyed by default, open with
/// `--hdhomerun-open` (or `TUNER_HDHOMERUN_OPEN`), and then their URLs carry the key. The rest
/// (API, pages, other outputs) stays closed either way. Also `lineup.xml`, `lineup.m3u` and
/// `/auto/v<GuideNumber>`, as real devices serve them.
@Suite(.serialized) struct HDHomeRunOpenEndToEndTests {
    static let token = "hdhomerun-open-test-token-" + UUID().uuidString

    /// `lineup.xml` read by Python's ElementTree: the root's tag, then each Program's
    /// `GuideNumber URL` on a line.
    static let elementTree = """
        import sys, xml.etree.ElementTree as ET
        root = ET.parse(sys.argv[1]).getroot()
        print(root.tag)
        for program in root.findall("Program"):
            print(program.findtext("GuideNumber"), program.findtext("URL"))
        """

    /// What ElementTree read from `xml`.
    static func parsedWithElementTree(_ xml: [UInt8], workspace: Workspace) async throws -> [String] {
        let path = workspace.file("lineup-\(UUID().uuidString.prefix(8)).xml")
        try Data(xml).write(to: URL(fileURLWithPath: path))
        let python = try #require(ExternalCommand.path(of: "python3"), "python3 is needed")
        let parsed = try await Subprocess.run(python, ["-c", elementTree, path])
        #expect(parsed.succeeded, "ElementTree: \(parsed.transcript)")
        return parsed.output.split(separator: "\n").map(String.init)
    }

    /// The stream types ffprobe reads from `url` (`video`, `audio`).
    static func probe(_ ffprobe: String, _ url: String) async throws -> (types: [String], transcript: String) {
        let probed = try await Subprocess.run(
            ffprobe, ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", url],
            timeout: .seconds(60))
        let types = probed.output.split(whereSeparator: \.isWhitespace).map(String.init)
        return (types, probed.transcript)
    }

    @Test("Beyond loopback the root HDHomeRun files need the key, unless --hdhomerun-open; the rest stays closed")
    func rootFilesOpenOnlyWhenTheUserSaysSo() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await OutputsEndToEndTests.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let data = fixture.workspace.file("data")
        let curl = tools[.curl]
        // The provider is on this machine, which the default beyond loopback (`remote`) refuses.
        let beyond = ["--host", "0.0.0.0", "--allow-fetch", "loopback"]
        let environment = ["TUNER_TOKEN": Self.token]
        let keyed = try await TunerProcess.serve(data: data, arguments: beyond, environment: environment)
        try await OutputsEndToEndTests.addSource(fixture, server: keyed, curl: curl, token: Self.token)
        let listed = try await Curl.fetch(
            curl, keyed.baseURL + "/api/v1/outputs", options: ["-H", "Authorization: Bearer \(Self.token)"])
        let profiles = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(listed.body))
        let key = try #require(profiles["profiles"]?.first?["accessKey"]?.string)

        // Off (the default): every root file and /auto/ need the key; the profile's keyed ones answer.
        for path in ["/discover.json", "/lineup.json", "/lineup.xml", "/lineup.m3u", "/lineup_status.json"] {
            #expect(try await Curl.fetch(curl, keyed.baseURL + path).status == 401, "\(path)")
        }
        #expect(try await Curl.fetch(curl, keyed.baseURL + "/auto/v1", options: ["-I"]).status == 401)
        let profileXML = try await Curl.fetch(curl, keyed.baseURL + "/output/default/key/\(key)/lineup.xml")
        #expect(profileXML.status == 200 && profileXML.header("Content-Type")?.hasPrefix("application/xml") == true)
        let profileLines = try await Self.parsedWithElementTree(profileXML.body, workspace: fixture.workspace)
        #expect(profileLines.first == "Lineup" && profileLines.count == 3, "\(profileLines)")
        #expect(profileLines.dropFirst().first == "1 \(keyed.baseURL)/play/default/1?key=\(key)", "\(profileLines)")
        let profileM3U = try await Curl.fetch(curl, keyed.baseURL + "/output/default/lineup.m3u?key=\(key)")
        #expect(profileM3U.status == 200)
        let head = try await Curl.fetch(
            curl, keyed.baseURL + "/output/default/key/\(key)/auto/v1", options: ["-I"])
        #expect(head.status == 200 && head.header("Content-Type") == "video/mp2t")
        #expect(
            try await Curl.fetch(curl, keyed.baseURL + "/output/default/auto/v1", options: ["-I"]).status == 401)
        await keyed.stop()

        // On: the root files answer without a key, their URLs carrying it; /auto/ plays.
        let open = try await TunerProcess.serve(
            data: data, arguments: beyond + ["--hdhomerun-open"], environment: environment)
        let discover = try await Curl.fetch(curl, open.baseURL + "/discover.json")
        #expect(discover.status == 200)
        let device = try JSONDecoder().decode([String: JSONValue].self, from: Data(discover.body))
        #expect(device["BaseURL"]?.string == "\(open.baseURL)/output/default/key/\(key)")
        #expect(device["LineupURL"]?.string == "\(open.baseURL)/output/default/key/\(key)/lineup.json")
        let lineup = try await Curl.fetch(curl, open.baseURL + "/lineup.json")
        let entries = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(lineup.body))
        #expect(
            entries.compactMap { $0["URL"]?.string } == (1...2).map { "\(open.baseURL)/play/default/\($0)?key=\(key)" })
        let xml = try await Curl.fetch(curl, open.baseURL + "/lineup.xml")
        #expect(xml.status == 200)
        let lines = try await Self.parsedWithElementTree(xml.body, workspace: fixture.workspace)
        #expect(
            lines == ["Lineup"] + entries.map { "\($0["GuideNumber"]?.string ?? "") \($0["URL"]?.string ?? "")" },
            "\(lines)")
        let m3u = try await Curl.fetch(curl, open.baseURL + "/lineup.m3u")
        let m3uText = String(decoding: m3u.body, as: UTF8.self)
        #expect(m3u.status == 200 && m3uText.hasPrefix("#EXTM3U"))
        #expect(m3uText.components(separatedBy: "#EXTINF").count - 1 == entries.count, "\(m3uText)")
        #expect(m3uText.contains("\n\(open.baseURL)/play/default/2?key=\(key)\n"), "\(m3uText)")
        let played = try await Self.probe(tools[.ffprobe], open.baseURL + "/auto/v1")
        #expect(played.types.contains("video"), "\(played.transcript)")
        for path in ["/auto/v99", "/auto/v01", "/auto/vx", "/auto/v", "/auto/1"] {
            #expect(try await Curl.fetch(curl, open.baseURL + path).status == 404, "\(path)")
        }
        // Everything else is as closed as before.
        for path in ["/api/v1/sources", "/output/default.m3u", "/output/default/lineup.json", "/play/default/1"] {
            #expect(try await Curl.fetch(curl, open.baseURL + path).status == 401, "\(path)")
        }
        await open.stop()

        // The same from the environment; a value that is neither on nor off is refused.
        let byEnvironment = try await TunerProcess.serve(
            data: data, arguments: beyond, environment: environment.merging(["TUNER_HDHOMERUN_OPEN": "on"]) { $1 })
        #expect(try await Curl.fetch(curl, byEnvironment.baseURL + "/lineup.json").status == 200)
        await byEnvironment.stop()
        let refused = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", data],
            environment: Subprocess.childEnvironment().merging(["TUNER_HDHOMERUN_OPEN": "maybe"]) { $1 })
        #expect(!refused.succeeded && refused.errorOutput.contains("--hdhomerun-open"), "\(refused.transcript)")
    }
}
