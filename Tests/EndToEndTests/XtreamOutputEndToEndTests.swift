import Foundation
import Testing
import TunerTesting

/// The Xtream Codes output, read by the most faithful client at hand: Tuner's own Xtream importer.
/// Tuner importing from Tuner must give the same channels and the same guide.
@Suite struct XtreamOutputEndToEndTests {
    @Test("Tuner imports its own Xtream output: same channels, same guide, playable streams")
    func tunerImportsItsOwnXtreamOutput() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await OutputsEndToEndTests.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let server = try await TunerProcess.serve(data: fixture.workspace.file("data"))
        try await OutputsEndToEndTests.addSource(fixture, server: server, curl: tools[.curl])
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]

        let user = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/users",
            options: json + ["--data", #"{"username":"viewer","password":"correct-horse","maxConnections":2}"#])
        #expect(user.status == 201, "\(String(decoding: user.body, as: UTF8.self))")
        #expect(!String(decoding: user.body, as: UTF8.self).contains("correct-horse"), "the API never sends a password")
        for bad in [
            #"{"username":"a/b","password":"correct-horse"}"#, #"{"username":"viewer","password":"correct-horse"}"#,
            #"{"username":"short","password":"1234"}"#,
            #"{"username":"other","password":"correct-horse","profiles":["none"]}"#,
        ] {
            let refused = try await Curl.fetch(
                tools[.curl], server.baseURL + "/api/v1/users", options: json + ["--data", bad])
            #expect([400, 409].contains(refused.status), "\(bad): \(refused.status)")
        }

        // A wrong login gets the panel's own refusal.
        let wrong = try await Curl.fetch(
            tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=wrong")
        #expect(String(decoding: wrong.body, as: UTF8.self) == #"{"user_info":{"auth":0}}"#)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/live/viewer/wrong/1.ts").status == 401)

        let account = try await Curl.fetch(
            tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=correct-horse")
        let info = try JSONDecoder().decode([String: [String: JSONValue]].self, from: Data(account.body))
        #expect(info["user_info"]?["auth"]?.number == 1 && info["user_info"]?["max_connections"]?.string == "2")

        // Tuner adds its own Xtream output as a source.
        let added = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/sources",
            options: json + [
                "--data",
                #"{"location":"\#(server.baseURL)","kind":"xtream","username":"viewer","password":"correct-horse"}"#,
            ])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        let id = Int(try #require(source["id"]?.number))
        let refreshed = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")

        // Same channels (names, groups) and the same guide, now twice in the default lineup.
        let lineup = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/outputs/default/channels")
        let channels = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(lineup.body))
        let rows = try #require(channels["channels"])
        #expect(rows.map { $0["name"]?.string } == ["News HD", "Sport", "News HD", "Sport"], "\(rows)")
        #expect(rows.map { $0["group"]?.string } == ["News", "Sport", "News", "Sport"])
        let guide = String(
            decoding: try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.xml").body, as: UTF8.self)
        #expect(
            guide.components(separatedBy: "<title>Evening &amp; News</title>").count == 3,
            "the guide came through xmltv.php for the imported channel too")

        // The imported channel plays: through Tuner's /play, which reaches Tuner's own /live path.
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                server.baseURL + "/play/default/3",
            ],
            timeout: .seconds(60))
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mpegts", "\(probe.transcript)")

        // get.php: Tuner's Xtream URLs, no provider secret.
        let m3u = String(
            decoding: try await Curl.fetch(
                tools[.curl], server.baseURL + "/get.php?username=viewer&password=correct-horse&type=m3u_plus&output=ts"
            ).body, as: UTF8.self)
        #expect(m3u.contains(server.baseURL + "/live/viewer/correct-horse/"))
        #expect(!m3u.contains("hunter2") && !m3u.contains(fixture.origin.baseURL))
        // Short EPG as panels send it (base64 titles), for a channel of the login.
        let streams = try JSONDecoder().decode(
            [[String: JSONValue]].self,
            from: Data(
                try await Curl.fetch(
                    tools[.curl],
                    server.baseURL + "/player_api.php?username=viewer&password=correct-horse&action=get_live_streams"
                ).body))
        let newsID = Int(try #require(streams.first?["stream_id"]?.number))
        let epg = String(
            decoding: try await Curl.fetch(
                tools[.curl],
                server.baseURL
                    + "/player_api.php?username=viewer&password=correct-horse&action=get_short_epg&stream_id=\(newsID)"
            ).body, as: UTF8.self)
        #expect(epg.contains(Data("Evening & News".utf8).base64EncodedString()), "\(epg)")
        let other = try await Curl.fetch(
            tools[.curl],
            server.baseURL
                + "/player_api.php?username=viewer&password=correct-horse&action=get_short_epg&stream_id=999999")
        #expect(other.status == 404)

        // Repeated failures are counted in the log, without the password tried.
        for _ in 0..<3 {
            _ = try await Curl.fetch(tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=guess1")
        }
        let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("Xtream login refused") && !log.contains("guess1") && !log.contains("correct-horse"))
        _ = await server.stop()
    }
}
