import Foundation
import Testing
import TunerTesting

/// The catalog's command-line interface as the issue lists it, through the real binary:
/// `tuner m3u check`, `tuner sources add|list|refresh|remove` (playlists and Xtream accounts, also
/// pasted as a `player_api.php` URL), `tuner channels --search/--group`, `tuner guide`; and the
/// scheduled refresh of `tuner serve` with its check and default intervals.
@Suite struct CatalogInterfaceTests {
    static func xmltvTime(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
    }

    static let xtreamResponses: [String: String] = [
        "get_live_categories":
            #"[{"category_id":"1","category_name":"News"},{"category_id":2,"category_name":"Sport"}]"#,
        "get_live_streams":
            #"[{"num":1,"name":"BBC One","stream_id":101,"epg_channel_id":"bbc1.uk","category_id":"1"},{"num":"2","name":"Sky Sports","stream_id":"102","category_id":2}]"#,
        "get_vod_categories": "[]",
        "get_vod_streams": "[]",
        "get_series_categories": "[]",
        "get_series": "[]",
    ]

    @Test func sourcesChannelsGuideAndM3UCheckFromTheCommandLine() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let now = Int64(Date().timeIntervalSince1970)
        // An hour that started half an hour ago, not the clock's hour: a run that crosses the clock's
        // hour still finds the same programme on now.
        let hour = now - 1800
        let guide = """
            <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
            <programme channel="bbc1.uk" start="\(Self.xmltvTime(hour))" stop="\(Self.xmltvTime(hour + 3600))"><title>The One Show</title></programme>
            <programme channel="bbc1.uk" start="\(Self.xmltvTime(hour + 3600))" stop="\(Self.xmltvTime(hour + 7200))"><title>EastEnders</title></programme></tv>
            """
        let fake = try await XtreamFake.start(responses: Self.xtreamResponses, guide: guide)
        defer { Task { try? await fake.shutdown() } }

        let playlist = workspace.file("list.m3u")
        try Data(
            """
            #EXTM3U
            #EXTINF:abc group-title="Films",Local Film Channel
            http://127.0.0.1:9/film.ts
            junk line here
            #EXTINF:-1 group-title="Sport" http-user-agent="Box/1.0",Local Sport
            http://127.0.0.1:9/sport.ts
            """.utf8
        ).write(to: URL(fileURLWithPath: playlist))

        let checked = try await TunerProcess.run(["m3u", "check", playlist])
        #expect(checked.succeeded, "\(checked.transcript)")
        #expect(checked.output.contains("line 2: invalid #EXTINF duration"), "\(checked.transcript)")
        #expect(checked.output.contains("line 4:"), "the junk line is reported: \(checked.transcript)")
        #expect(checked.output.contains("2 entries, 2 warnings, 1 with headers"), "\(checked.transcript)")

        let local = try await TunerProcess.run(["sources", "add", playlist, "--data", data])
        #expect(local.succeeded && local.output.contains("2 channels"), "\(local.transcript)")

        // Pasted whole, as providers send it: the CLI takes the server and credentials apart.
        let pasted = try await TunerProcess.run([
            "sources", "add", "\(fake.baseURL)/player_api.php?username=user&password=pass", "--xtream", "--name",
            "Pasted", "--data", data,
        ])
        #expect(pasted.succeeded && pasted.output.contains("2 channels"), "\(pasted.transcript)")
        #expect(
            pasted.output.contains("guide: 1 channels, 2 programmes"),
            "the account's xmltv.php comes along: \(pasted.transcript)")
        let apart = try await TunerProcess.run([
            "sources", "add", fake.baseURL, "--xtream", "--user", "user", "--password", "pass", "--name", "Apart",
            "--no-refresh", "--data", data,
        ])
        #expect(apart.succeeded, "\(apart.transcript)")
        let incomplete = try await TunerProcess.run([
            "sources", "add", fake.baseURL, "--xtream", "--user", "user", "--data", data,
        ])
        #expect(!incomplete.succeeded && incomplete.errorOutput.contains("--password"), "\(incomplete.transcript)")

        let listed = try await TunerProcess.run(["sources", "list", "--data", data])
        #expect(listed.succeeded, "\(listed.transcript)")
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 3, "\(listed.transcript)")
        #expect(lines.filter { $0.contains("\txtream\t") }.count == 2, "\(listed.transcript)")
        #expect(
            !listed.output.contains("password"),
            "the pasted URL's password is not shown as the location: \(listed.transcript)")

        let refreshed = try await TunerProcess.run(["sources", "refresh", "--data", data])
        #expect(refreshed.succeeded, "\(refreshed.transcript)")
        #expect(
            refreshed.output.split(separator: "\n").filter { $0.contains("2 channels") }.count == 3,
            "every source is refreshed: \(refreshed.transcript)")

        let searched = try await TunerProcess.run(["channels", "--search", "bbc", "--data", data])
        #expect(searched.succeeded, "\(searched.transcript)")
        #expect(
            searched.output.split(separator: "\n").filter { $0.contains("BBC One") }.count == 2,
            "one per Xtream source: \(searched.transcript)")
        #expect(searched.output.contains("of 2"), "\(searched.transcript)")
        let sport = try await TunerProcess.run(["channels", "--group", "Sport", "--data", data])
        #expect(sport.output.contains("Local Sport") && sport.output.contains("Sky Sports"), "\(sport.transcript)")
        #expect(!sport.output.contains("BBC One") && !sport.output.contains("Film"), "\(sport.transcript)")

        let shown = try await TunerProcess.run(["guide", "bbc one", "--data", data])
        #expect(shown.succeeded, "\(shown.transcript)")
        #expect(
            shown.output.split(separator: "\n").contains { $0.hasPrefix("now\t") && $0.contains("The One Show") },
            "\(shown.transcript)")
        #expect(
            shown.output.split(separator: "\n").contains { $0.hasPrefix("next\t") && $0.contains("EastEnders") },
            "\(shown.transcript)")

        let removed = try await TunerProcess.run(["sources", "remove", "3", "--data", data])
        #expect(removed.succeeded, "\(removed.transcript)")
        let after = try await TunerProcess.run(["sources", "list", "--data", data])
        #expect(after.output.split(separator: "\n").count == 2, "\(after.transcript)")
        #expect(!after.output.contains("Apart"), "\(after.transcript)")
    }

    @Test func serveRefreshesSourcesOnItsOwnAtTheConfiguredIntervals() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let playlist = workspace.file("list.m3u")
        try Data(
            "#EXTM3U\n#EXTINF:-1,First\nhttp://127.0.0.1:9/1.ts\n#EXTINF:-1,Second\nhttp://127.0.0.1:9/2.ts\n".utf8
        )
        .write(to: URL(fileURLWithPath: playlist))
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--catalog-check-interval", "1", "--files-root", workspace.path],
            environment: ["TUNER_CATALOG_REFRESH_INTERVAL": "2h"])

        let added = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"location":"\#(playlist)"}"#,
            ])
        #expect(added.status == 201, "\(added.process.transcript)")
        let source = try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any] ?? [:]
        #expect(
            source["refreshInterval"] as? Double == 7200,
            "TUNER_CATALOG_REFRESH_INTERVAL is the new source's interval: \(source)")

        // Nobody asks for a refresh: the scheduler, looking every second, imports the new source.
        var total = 0
        for _ in 0..<100 where total == 0 {
            let listed = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/channels")
            total =
                (try? JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["total"] as? Int ?? 0
            if total == 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(total == 2, "the scheduled refresh imported the source: \(server.log)")
        await server.stop()
    }

    @Test(
        arguments: [
            (["--catalog-check-interval", "soon"], [:], "--catalog-check-interval"),
            (["--catalog-refresh-interval", "0"], [:], "--catalog-refresh-interval"),
            ([], ["TUNER_CATALOG_CHECK_INTERVAL": "often"], "TUNER_CATALOG_CHECK_INTERVAL"),
            ([], ["TUNER_CATALOG_REFRESH_INTERVAL": "-1h"], "TUNER_CATALOG_REFRESH_INTERVAL"),
        ] as [([String], [String: String], String)])
    func badCatalogIntervalsStopServeNamingTheSetting(
        flags: [String], environment: [String: String], named setting: String
    ) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", workspace.file("data")] + flags,
            environment: Subprocess.childEnvironment().merging(environment) { $1 }, timeout: .seconds(20))
        #expect(!result.succeeded && !result.timedOut, "tuner serve must refuse to start: \(result.transcript)")
        #expect(result.errorOutput.contains(setting), "the message names \(setting): \(result.transcript)")
    }

    @Test("A source whose refresh was cut by kill -9 is marked failed at the next start, then refreshes again")
    func interruptedRefreshIsRecovered() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try Data(
            ("#EXTM3U\n" + (0..<2000).map { "#EXTINF:-1,Channel \($0)\nhttp://127.0.0.1:9/\($0).ts\n" }.joined()).utf8
        )
        .write(to: URL(fileURLWithPath: served + "/list.m3u"))
        origin.serveDirectory(served)
        let data = workspace.file("data")
        let first = try await TunerProcess.serve(data: data)
        // The origin sends 1 KiB of the playlist and then nothing: the refresh hangs mid-download.
        // (Only the first request: later ones get the whole file.)
        let added = try await Curl.fetch(
            tools[.curl], first.baseURL + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data", #"{"location":"\#(origin.baseURL)/static/list.m3u?hold=1024&failfirst=1"}"#,
            ])
        #expect(added.status == 201)
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any])?["id"] as? Int)
        let refresh = Task {
            try await Curl.fetch(
                tools[.curl], first.baseURL + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"],
                timeout: .seconds(30))
        }
        func status(_ server: TunerProcess) async throws -> [String: Any] {
            let answer = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/sources")
            let sources =
                (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["sources"]
                as? [[String: Any]]
            return sources?.first { $0["id"] as? Int == id } ?? [:]
        }
        var seen = ""
        for _ in 0..<200 where seen != "refreshing" {
            seen = try await status(first)["status"] as? String ?? ""
            if seen != "refreshing" { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(seen == "refreshing")
        // The status says "refreshing" before the request reaches the origin: killed earlier, the
        // first server would leave the held answer to the second one, whose refresh would hang.
        for _ in 0..<600 where origin.bodyBytesSent(path: "/static/list.m3u") < 1024 {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(origin.bodyBytesSent(path: "/static/list.m3u") >= 1024, "the playlist was never asked for")
        await first.kill9()
        _ = try? await refresh.value

        let second = try await TunerProcess.serve(data: data)
        var recovered: [String: Any] = [:]
        for _ in 0..<200 {
            recovered = try await status(second)
            if recovered["status"] as? String != "refreshing" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(recovered["status"] as? String == "failed", "\(recovered)")
        #expect((recovered["lastError"] as? String ?? "").contains("interrupted"))

        // The origin now serves the whole playlist: the retried refresh imports it.
        let refreshed = try await Curl.fetch(
            tools[.curl], second.baseURL + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200)
        #expect(try await status(second)["status"] as? String == "ok")
        await second.stop()
        try await origin.shutdown()
    }
}
