import Foundation
import Testing
import TunerAPI
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The DVR through the real `tuner serve`, a fake provider streaming real-time MPEG-TS and a guide
/// with programmes a few seconds ahead: recordings start on time as viewers of the live session,
/// end as MP4 files ffprobe reads, survive a kill -9 as a second part with the gap said, follow
/// the channel's alternative when the provider dies, and the conflicts of an account allowing one
/// connection are reported before they happen.
struct RecordingEndToEndTests {
    struct Fixture {
        let workspace: Workspace
        let provider: LiveTSOrigin
        let files: TestOrigin
        let server: TunerProcess
        let curl: String

        func remove() async {
            _ = await server.stop()
            await provider.shutdown()
            try? await files.shutdown()
            workspace.remove()
        }

        /// Calls the API; the body decoded as `T` when the answer is 2xx.
        func call<T: Decodable>(
            _ type: T.Type, _ method: String, _ path: String, body: String? = nil
        ) async throws -> (status: Int, value: T?, text: String) {
            var options = ["-X", method]
            if let body { options += ["-H", "Content-Type: application/json", "--data", body] }
            let answer = try await Curl.fetch(curl, server.baseURL + path, options: options)
            let data = Data(answer.body)
            let value = (200..<300).contains(answer.status) ? try? JSONDecoder().decode(T.self, from: data) : nil
            return (answer.status, value, String(decoding: data, as: UTF8.self))
        }

        /// Serves `guide` as source A's guide and imports it again. The tests write their programmes
        /// once the server is up, relative to that moment: a loaded machine may take a minute to
        /// start a server, and a programme "45 s ahead" must still be ahead.
        func setGuide(_ guide: String) async throws {
            try Data(guide.utf8).write(to: URL(fileURLWithPath: workspace.file("served") + "/guide.xml"))
            let refreshed = try await call(RefreshAnswer.self, "POST", "/api/v1/sources/1/refresh")
            #expect(refreshed.status == 200, "\(refreshed.text)")
        }

        /// Asks for a recording of `channel` over a span; its id.
        func record(channel: Int64, from start: Int64, seconds: Int64, title: String) async throws -> Int64 {
            let added = try await call(
                RecordingAnswer.self, "POST", "/api/v1/recordings",
                body: #"{"channelID":\#(channel),"start":\#(start),"stop":\#(start + seconds),"title":"\#(title)"}"#)
            return try #require(added.value?.id, "\(added.status) \(added.text)")
        }

        func recording(_ id: Int64) async throws -> RecordingAnswer {
            let answer = try await call(RecordingAnswer.self, "GET", "/api/v1/recordings/\(id)")
            return try #require(answer.value, "recording \(id): \(answer.status) \(answer.text)")
        }

        /// Polls recording `id` until `condition` holds (at most `seconds`).
        func wait(
            _ id: Int64, seconds: Int = 240, _ condition: (RecordingAnswer) -> Bool
        ) async throws -> RecordingAnswer {
            let deadline = ContinuousClock.now + .seconds(seconds)
            var last = try await recording(id)
            while !condition(last), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                last = try await recording(id)
            }
            return last
        }
    }

    /// A guide to start with (a month ahead: nothing a test records); the tests set their own
    /// once the server is up (``Fixture/setGuide(_:)``).
    static var placeholderGuide: String {
        guide([("two.uk", now() + 30 * 86_400, now() + 30 * 86_400 + 3600, "Later", nil)])
    }

    /// XMLTV for `programmes` (channel id, start, stop, title, episode-num in xmltv_ns).
    static func guide(_ programmes: [(String, Int64, Int64, String, String?)]) -> String {
        func time(_ seconds: Int64) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss"
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
        }
        var text = #"<?xml version="1.0" encoding="UTF-8"?><tv>"#
        for id in ["one.uk", "two.uk"] {
            text += #"<channel id="\#(id)"><display-name>\#(id)</display-name></channel>"#
        }
        for (channel, start, stop, title, episode) in programmes {
            text += #"<programme channel="\#(channel)" start="\#(time(start))" stop="\#(time(stop))">"#
            text += "<title>\(title)</title>"
            if let episode { text += #"<episode-num system="xmltv_ns">\#(episode)</episode-num>"# }
            text += "</programme>"
        }
        return text + "</tv>"
    }

    /// A provider with `one` and `two` (source A, at most `limit` connections, with the guide) and
    /// `backup` (source B, the same tvg-id as `one`), and a server with both imported.
    static func start(
        curl: String, guide: String, limit: Int? = nil, arguments: [String] = []
    ) async throws -> Fixture {
        let workspace = try Workspace()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let provider = try await LiveTSOrigin.start()
        for (index, name) in ["one", "two", "backup"].enumerated() {
            let path = workspace.file("\(name).ts")
            try await LiveTSOrigin.makeStream(
                at: path, seconds: 4, firstPID: 0x100 + index * 0x10, serviceID: index + 1)
            try provider.serve(name, file: path, seconds: 4)
        }
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.uk",One
            \(provider.url("one"))
            #EXTINF:-1 tvg-id="two.uk",Two
            \(provider.url("two"))
            """.utf8
        ).write(to: URL(fileURLWithPath: served + "/a.m3u"))
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.uk",One (backup)
            \(provider.url("backup"))
            """.utf8
        ).write(to: URL(fileURLWithPath: served + "/b.m3u"))
        try Data(guide.utf8).write(to: URL(fileURLWithPath: served + "/guide.xml"))
        let files = try await TestOrigin.start()
        files.serveDirectory(served)
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--live-stall-timeout", "30"] + arguments)
        let fixture = Fixture(workspace: workspace, provider: provider, files: files, server: server, curl: curl)
        for (index, body) in [
            #"{"location":"\#(files.baseURL)/static/a.m3u","epgURLs":["\#(files.baseURL)/static/guide.xml"]}"#,
            #"{"location":"\#(files.baseURL)/static/b.m3u"}"#,
        ].enumerated() {
            let added = try await fixture.call(SourceAnswer.self, "POST", "/api/v1/sources", body: body)
            let id = try #require(added.value?.id, "\(added.status) \(added.text)")
            if index == 0, let limit {
                let changed = try await fixture.call(
                    SourceAnswer.self, "PATCH", "/api/v1/sources/\(id)", body: #"{"maxConnections":\#(limit)}"#)
                #expect(changed.status == 200, "\(changed.text)")
            }
            let refreshed = try await fixture.call(RefreshAnswer.self, "POST", "/api/v1/sources/\(id)/refresh")
            #expect(refreshed.status == 200, "\(refreshed.text)")
        }
        return fixture
    }

    /// The guide's programme id of `title` (from the channel's guide).
    static func programmeID(_ fixture: Fixture, channel: Int64, title: String, around: Int64) async throws -> Int64 {
        let answer = try await fixture.call(
            ChannelGuideAnswer.self, "GET",
            "/api/v1/channels/\(channel)/guide?from=\(around - 3600)&to=\(around + 3600)")
        let programme = answer.value?.programmes.first { $0.title == title }
        return try #require(programme?.id, "no programme \(title): \(answer.text)")
    }

    /// ffprobe's duration (seconds) and video frame count of `path`.
    static func probe(_ ffprobe: String, _ path: String) async throws -> (duration: Double, frames: Int) {
        let result = try await Subprocess.run(
            ffprobe,
            [
                "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                "stream=nb_read_packets:format=duration", "-of", "default=noprint_wrappers=1", path,
            ], timeout: .seconds(60))
        let text = result.output
        func value(_ key: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        return (Double(value("duration") ?? "") ?? -1, Int(value("nb_read_packets") ?? "") ?? -1)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    @Test(
        "a programme ahead is recorded on time as MP4 of its length plus padding; a second request is the same recording; the conflict is reported before it starts"
    )
    func aProgrammeAheadIsRecorded() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(curl: tools[.curl], guide: Self.placeholderGuide, limit: 1)
        defer { Task { await fixture.remove() } }
        let start = Self.now() + 45
        try await fixture.setGuide(
            Self.guide([("one.uk", start, start + 30, "Show", "0.0."), ("two.uk", start, start + 30, "Other", nil)]))
        let show = try await Self.programmeID(fixture, channel: 1, title: "Show", around: start)
        let other = try await Self.programmeID(fixture, channel: 2, title: "Other", around: start)
        let body = #"{"programmeID":\#(show),"paddingBeforeSeconds":5,"paddingAfterSeconds":5,"priority":10}"#
        let first = try await fixture.call(RecordingAnswer.self, "POST", "/api/v1/recordings", body: body)
        #expect(first.status == 201, "\(first.text)")
        let again = try await fixture.call(RecordingAnswer.self, "POST", "/api/v1/recordings", body: body)
        #expect(again.status == 200 && again.value?.id == first.value?.id, "one programme is one recording")
        let low = try await fixture.call(
            RecordingAnswer.self, "POST", "/api/v1/recordings", body: #"{"programmeID":\#(other),"priority":1}"#)
        let showID = try #require(first.value?.id)
        let otherID = try #require(low.value?.id)

        // Before either starts, the list says which one will not record, and why.
        let listed = try await fixture.call(RecordingList.self, "GET", "/api/v1/recordings")
        let planned = try #require(listed.value?.recordings)
        #expect(Self.now() < start - 5, "the machine was too slow to check the plan before the start")
        #expect(planned.first { $0.id == showID }?.conflict == nil)
        let conflict = try #require(planned.first { $0.id == otherID }?.conflict, "\(listed.text)")
        #expect(conflict.contains("'Show' (priority 10)"))
        #expect(planned.first { $0.id == showID }?.recordStart == start - 5)

        let done = try await fixture.wait(showID) { $0.state == "done" || $0.state == "failed" }
        #expect(done.state == "done", "\(done)\n\(fixture.server.log.suffix(3000))")
        let file = try #require(done.files.first)
        #expect(done.files.count == 1 && file.format == "mp4" && done.gaps.isEmpty, "\(done)")
        #expect(file.name == "Show/Show - S01E01 - \(Self.stamp(start)).mp4")
        let path = fixture.server.dataDirectory + "/recordings/" + file.name
        let (duration, frames) = try await Self.probe(tools[.ffprobe], path)
        #expect(abs(duration - 40) <= 2, "the programme's 30 s and 10 s of padding, not \(duration) s")
        #expect(abs(Double(frames) - duration * 25) <= 25, "\(frames) frames in \(duration) s at 25 fps")
        let decoded = try await Subprocess.run(
            tools[.ffmpeg], ["-v", "error", "-i", path, "-f", "null", "-"], timeout: .seconds(60))
        #expect(decoded.status == 0, "\(decoded.errorOutput)")

        let lost = try await fixture.wait(otherID) { $0.state != "scheduled" && $0.state != "recording" }
        #expect(lost.state == "failed" && lost.files.isEmpty, "\(lost)")
        #expect(lost.reason?.contains("'Show' (priority 10)") == true, "\(lost.reason ?? "")")

        // Played back with seeking: a range from the middle.
        let ranged = try await Curl.fetch(
            tools[.curl], fixture.server.baseURL + "/api/v1/recordings/\(showID)/file",
            options: ["-H", "Range: bytes=1000-1999"])
        #expect(ranged.status == 206 && ranged.body.count == 1000)
        let whole = try #require(FileManager.default.contents(atPath: path))
        #expect(ranged.body == [UInt8](whole[1000..<2000]))
        #expect(ranged.header("Content-Range") == "bytes 1000-1999/\(whole.count)")

        // An Xtream client (pyxtream, from PyPI) lists the recording as a film of "Recordings";
        // its URL plays in ffprobe and answers a range.
        guard let python = XtreamPanelEndToEndTests.python(with: "pyxtream") else { return }
        let user = try await fixture.call(
            OutputUserAnswer.self, "POST", "/api/v1/users",
            // pyxtream reads an expiry date as a number: it needs one.
            body:
                #"{"username":"viewer","password":"correct-horse","profiles":["default"],"expiresAt":\#(Self.now() + 86_400)}"#
        )
        #expect(user.status == 201, "\(user.text)")
        let script = fixture.workspace.file("client.py")
        let cache = fixture.workspace.file("pyxtream-cache")
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        try Data(Self.pyxtreamScript.utf8).write(to: URL(fileURLWithPath: script))
        let run = try await Subprocess.run(
            python, [script, fixture.server.baseURL, "viewer", "correct-horse", cache],
            environment: ProcessInfo.processInfo.environment.merging(["HOME": fixture.workspace.path]) { $1 },
            timeout: .seconds(120))
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("RESULT ") }, "\(run.transcript)")
        let got = try JSONDecoder().decode([String: [String]].self, from: Data(line.dropFirst(7).utf8))
        #expect(got["movies"] == ["Show"], "\(got)")
        #expect(got["groups"]?.contains("Recordings") == true, "\(got)")
        let url = try #require(got["urls"]?.first)
        #expect(url.hasPrefix(fixture.server.baseURL + "/movie/viewer/correct-horse/") && url.hasSuffix(".mp4"))
        let (played, _) = try await Self.probe(tools[.ffprobe], url)
        #expect(abs(played - duration) < 0.5, "the same file through the Xtream URL: \(played) s")
        let seek = try await Curl.fetch(tools[.curl], url, options: ["-H", "Range: bytes=-500"])
        #expect(seek.status == 206 && seek.body == [UInt8](whole.suffix(500)))
    }

    /// pyxtream as its README uses it: log in, load everything; the films, their groups and URLs.
    static let pyxtreamScript = #"""
        import json, sys
        from pyxtream import XTream

        base, username, password, cache = sys.argv[1:5]
        x = XTream("tuner", username, password, base, cache_path=cache, reload_time_sec=-1)
        if not x.state["authenticated"]:
            sys.exit("login failed")
        x.load_iptv()
        result = {
            "movies": sorted(m.name for m in x.movies),
            "groups": sorted(g.name for g in x.groups),
            "urls": [m.url for m in x.movies],
        }
        print("RESULT " + json.dumps(result))
        """#

    static func stamp(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "yyyy-MM-dd HHmm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test(
        "kill -9 during a recording: after the restart it goes on as a second part, the gap recorded, nothing written lost"
    )
    func aRecordingSurvivesKillNine() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(curl: tools[.curl], guide: Self.placeholderGuide)
        defer { Task { await fixture.remove() } }
        let start = Self.now() + 15
        let id = try await fixture.record(channel: 1, from: start, seconds: 60, title: "Long")
        // Some bytes synced (a sync every 2 s), then the server dies without a word.
        let running = try await fixture.wait(id) { $0.state == "recording" && $0.bytes > 200_000 }
        #expect(running.state == "recording", "\(running)")
        let observedAt = Self.now()
        try await Task.sleep(for: .seconds(3))
        await fixture.server.kill9()
        let killedAt = Self.now()
        try await Task.sleep(for: .seconds(4))
        let again = try await TunerProcess.serve(
            data: fixture.server.dataDirectory, arguments: ["--live-stall-timeout", "30"])
        defer { Task { await again.stop() } }
        let restarted = Fixture(
            workspace: fixture.workspace, provider: fixture.provider, files: fixture.files, server: again,
            curl: fixture.curl)
        let done = try await restarted.wait(id) { $0.state == "done" || $0.state == "failed" }
        #expect(done.state == "done", "\(done)")
        #expect(done.files.count == 2, "two parts: \(done.files)")
        let gap = try #require(done.gaps.first, "the restart's gap is recorded")
        #expect(gap.reason.contains("stopped"))
        #expect(gap.from <= killedAt && gap.to >= killedAt + 3, "\(gap) around the kill at \(killedAt)")
        #expect((done.files.first?.bytes ?? 0) > 0 && done.files.allSatisfy { $0.format == "mp4" })
        // Nothing written before the kill is lost: the first part lasts from its start to at
        // least the last sync the API showed.
        let first = fixture.server.dataDirectory + "/recordings/" + (done.files.first?.name ?? "")
        let (firstDuration, _) = try await Self.probe(tools[.ffprobe], first)
        // A sync every 2 s: what the API saw is at most that old, and whole seconds round.
        let syncedSeconds = Double(observedAt - (running.files.first?.from ?? observedAt))
        #expect(firstDuration + 4 >= syncedSeconds, "\(firstDuration) s kept of \(syncedSeconds) s seen synced")
        #expect(done.files[1].name.contains("(part 2)"))
        let second = fixture.server.dataDirectory + "/recordings/" + done.files[1].name
        let (secondDuration, _) = try await Self.probe(tools[.ffprobe], second)
        let total = firstDuration + secondDuration + Double(gap.to - gap.from)
        // The gap's ends are whole seconds (up to 2 s off between them), and each part ends and
        // starts where a loaded machine's writes and the restart's first keyframe fell.
        #expect(
            abs(total - 60) <= 6, "parts \(firstDuration) + \(secondDuration) s and a gap of \(gap.to - gap.from) s")
    }

    @Test("the provider dies mid-recording: the recording follows the channel's alternative and has no gap")
    func aRecordingFollowsTheAlternative() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(curl: tools[.curl], guide: Self.placeholderGuide)
        defer { Task { await fixture.remove() } }
        let start = Self.now() + 12
        let id = try await fixture.record(channel: 1, from: start, seconds: 40, title: "Match")
        let running = try await fixture.wait(id) { $0.state == "recording" && $0.bytes > 100_000 }
        #expect(running.state == "recording")
        fixture.provider.set("one", .dead)
        let done = try await fixture.wait(id) { $0.state == "done" || $0.state == "failed" }
        // The alternative's stream (other PIDs) begins a second part where its bytes begin: no
        // gap, each part an MP4 of its own stream.
        #expect(done.state == "done" && done.files.count >= 2 && done.gaps.isEmpty, "\(done)")
        #expect(done.files.allSatisfy { $0.format == "mp4" } && done.files[1].name.contains("(part 2)"))
        #expect(fixture.provider.connectionCount("backup") >= 1, "the alternative was read")
        var total = 0.0
        for file in done.files {
            total += try await Self.probe(tools[.ffprobe], fixture.server.dataDirectory + "/recordings/" + file.name)
                .duration
        }
        // The session's failover takes its time (seeing the provider gone, opening the
        // alternative): seconds without a picture on a loaded machine, for viewers and recording
        // alike. The recording never left the channel: both parts together hold the span but that.
        #expect(total >= 30 && total <= 44, "\(total) s in \(done.files.count) parts for a 40 s programme")
    }

    @Test(
        "rules plan from the guide: a series rule takes new episodes only and the ones a guide refresh adds, a keyword and a weekday rule fire; the CLI lists them"
    )
    func rulesPlanFromTheGuide() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let base = Self.now() + 3600
        let first = Self.guide([
            ("one.uk", base, base + 1800, "Serial", "0.0."), ("one.uk", base + 7200, base + 9000, "Serial", "0.0."),
            ("two.uk", base + 3600, base + 5400, "Evening News", nil), ("two.uk", base, base + 600, "Newsround", nil),
        ])
        let fixture = try await Self.start(curl: tools[.curl], guide: first)
        defer { Task { await fixture.remove() } }
        let series = try await fixture.call(
            RecordingRule.self, "POST", "/api/v1/rules", body: #"{"kind":"series","title":"serial","newOnly":true}"#)
        let seriesID = try #require(series.value?.id, "\(series.status) \(series.text)")
        let keyword = try await fixture.call(
            RecordingRule.self, "POST", "/api/v1/rules", body: #"{"kind":"keyword","keyword":"news","channelIDs":[2]}"#)
        let keywordID = try #require(keyword.value?.id, "\(keyword.text)")
        // Every day at the next whole hour: whatever the guide says.
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        let at = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base - base % 3600 + 3600)))
        let time = try await fixture.call(
            RecordingRule.self, "POST", "/api/v1/rules",
            body:
                #"{"kind":"time","name":"Top of the hour","time":"\#(at)","weekdays":[1,2,3,4,5,6,7],"durationMinutes":5,"channelIDs":[1]}"#
        )
        let timeID = try #require(time.value?.id, "\(time.text)")

        func planned() async throws -> [RecordingAnswer] {
            try #require(try await fixture.call(RecordingList.self, "GET", "/api/v1/recordings").value?.recordings)
        }
        var list = try await planned()
        let serial = list.filter { $0.ruleIDs.contains(seriesID) }
        #expect(serial.map(\.start) == [base], "the first airing of S01E01, not its repeat: \(serial)")
        // Whole words: "Evening News" yes, "Newsround" no.
        #expect(list.filter { $0.ruleIDs.contains(keywordID) }.map(\.title) == ["Evening News"])
        let hourly = list.filter { $0.ruleIDs.contains(timeID) }
        #expect(hourly.count >= 7 && hourly.allSatisfy { $0.title == "Top of the hour" && $0.channelID == 1 })

        // The guide gains episode 2: the next refresh plans it, and the repeat stays out.
        let second = Self.guide([
            ("one.uk", base, base + 1800, "Serial", "0.0."), ("one.uk", base + 7200, base + 9000, "Serial", "0.0."),
            ("one.uk", base + 10800, base + 12600, "Serial", "0.1."),
            ("two.uk", base + 3600, base + 5400, "Evening News", nil),
        ])
        try Data(second.utf8).write(to: URL(fileURLWithPath: fixture.workspace.file("served") + "/guide.xml"))
        let refreshed = try await fixture.call(RefreshAnswer.self, "POST", "/api/v1/sources/1/refresh")
        #expect(refreshed.status == 200)
        for _ in 0..<200 where list.filter({ $0.ruleIDs.contains(seriesID) }).count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            list = try await planned()
        }
        #expect(
            list.filter { $0.ruleIDs.contains(seriesID) }.map(\.start) == [base, base + 10800],
            "\(list.filter { $0.ruleIDs.contains(seriesID) })")

        // A scheduled recording deleted stays cancelled: the rule does not bring it back.
        let cancelled = try #require(list.first { $0.ruleIDs.contains(keywordID) })
        _ = try await fixture.call(MessageAnswer.self, "DELETE", "/api/v1/recordings/\(cancelled.id)")
        _ = try await fixture.call(RefreshAnswer.self, "POST", "/api/v1/sources/1/refresh")
        try await Task.sleep(for: .seconds(2))
        #expect(try await fixture.recording(cancelled.id).state == "cancelled")

        // Numbers from outside are checked, never trapped on: each is refused with the reason.
        for body in [
            #"{"channelID":1,"start":-9223372036854775808,"stop":9223372036854775807}"#,
            #"{"channelID":1,"start":9223372036854775000,"stop":9223372036854775807,"paddingAfterSeconds":9999999}"#,
            #"{"channelID":99999999,"start":\#(base),"stop":\#(base + 60)}"#, #"{"programmeID":-1}"#, "{}",
        ] {
            let refused = try await fixture.call(MessageAnswer.self, "POST", "/api/v1/recordings", body: body)
            #expect([400, 404].contains(refused.status) && refused.text.contains("error"), "\(body): \(refused.text)")
        }
        for body in [
            #"{"kind":"series","title":"x","priority":9223372036854775807}"#,
            #"{"kind":"time","channelIDs":[1],"time":"25:00","weekdays":[1],"durationMinutes":5}"#,
            #"{"kind":"time","channelIDs":[1],"time":"10:00","weekdays":[8],"durationMinutes":5}"#,
            #"{"kind":"keyword","keyword":"x","keepDays":-5}"#,
        ] {
            let refused = try await fixture.call(MessageAnswer.self, "POST", "/api/v1/rules", body: body)
            #expect(refused.status == 400, "\(body): \(refused.text)")
        }
        let health = try await fixture.call(HealthAnswer.self, "GET", "/api/v1/health")
        #expect(health.status == 200)

        // The CLI reads the same from the running server.
        let rules = try await TunerProcess.run(["rules", "--data", fixture.server.dataDirectory])
        #expect(rules.status == 0, "\(rules.errorOutput)")
        #expect(rules.output.contains("series\tserial\tany channel\tnew episodes only"), "\(rules.output)")
        let recordings = try await TunerProcess.run(["recordings", "--data", fixture.server.dataDirectory])
        #expect(recordings.output.contains("scheduled") && recordings.output.contains("Serial"), "\(recordings.output)")
        let added = try await TunerProcess.run([
            "recordings", "add", "--channel", "2", "--start", "\(base + 20000)", "--minutes", "5", "--title", "By hand",
            "--data", fixture.server.dataDirectory,
        ])
        #expect(added.status == 0 && added.output.contains("By hand"), "\(added.output) \(added.errorOutput)")
    }

    @Test("the web app: Record in the guide; the Recordings page live from upcoming to done; played in Chromium")
    func recordingsInTheBrowser() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .chromium, .chromedriver) else { return }
        let title = "Evening <b>Show</b> & more"
        let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let fixture = try await Self.start(curl: tools[.curl], guide: Self.placeholderGuide)
        defer { Task { await fixture.remove() } }
        // A minute ahead: Chromium starts and reads the guide before the programme begins.
        let start = Self.now() + 60
        try await fixture.setGuide(
            Self.guide([
                ("one.uk", start, start + 20, escaped, nil), ("one.uk", start + 20, start + 3620, "The Film", nil),
                ("two.uk", start - 1800, start + 1800, "Quiz", nil),
                ("two.uk", start + 1800, start + 5400, "News", nil),
            ]))
        let result = try await HeadlessChromium.run(
            steps: Self.browserSteps, arguments: [fixture.server.baseURL, title], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "recordings"),
            timeout: .seconds(300))
        #expect(result.succeeded, "\(result.transcript)\n\(fixture.server.log.suffix(3000))")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true, "\(result.transcript)")
        let list = try #require(try await fixture.call(RecordingList.self, "GET", "/api/v1/recordings").value)
        #expect(list.recordings.first?.keep == true, "the Keep button reached the server: \(list)")
    }

    /// args: the server's base URL and the programme's title (hostile: it must stay text).
    static let browserSteps = #"""
        base, title = args[0], args[1]
        driver.get(base + "/guide")
        wait_for("return [...document.querySelectorAll('.guide-cell .title')].some(t => t.textContent === arguments[0])", 30, title)
        check(js("return document.querySelectorAll('.guide-cell b').length") == 0, "the guide's title became markup")
        js("""const cell = [...document.querySelectorAll('.guide-cell')].find(c => c.querySelector('.title').textContent === arguments[0]);
              cell.querySelector('.record').click()""", title)
        wait_for("return document.getElementById('guide-status').textContent.includes('will be recorded')", 20)
        wait_for("return document.querySelector('.guide-cell .record.scheduled') !== null", 20)
        screenshot("guide-record")

        driver.get(base + "/recordings")
        wait_for("return document.querySelectorAll('#recording-upcoming .recording').length === 1", 20)
        check(js("return document.querySelector('#recording-upcoming .name').textContent") == title, "the title as text")
        check(js("return document.querySelectorAll('#recording-upcoming b').length") == 0, "markup from the guide")
        # A rule from the form, listed at once.
        js("const f = document.getElementById('add-rule'); f.kind.value = 'keyword'; f.kind.dispatchEvent(new Event('change'))")
        driver.find_element(By.ID, "rule-text").send_keys("news")
        driver.find_element(By.CSS_SELECTOR, "#add-rule button[type=submit]").click()
        wait_for("return [...document.querySelectorAll('#rules .rule')].some(r => r.textContent.includes('news'))", 20)
        js("document.getElementById('recordings-heading').scrollIntoView()")
        screenshot("recordings-upcoming")

        # Live, without a reload: it starts recording, with a moving bar, then is done.
        wait_for("return document.querySelectorAll('#recording-now .recording progress').length === 1", 90)
        first = js("return Number(document.querySelector('#recording-now progress').value)")
        time.sleep(3)
        check(js("return Number(document.querySelector('#recording-now progress').value)") > first, "the bar moves")
        js("document.getElementById('recordings-heading').scrollIntoView()")
        screenshot("recordings-now")
        wait_for("return document.querySelectorAll('#recording-done .recording').length === 1", 120)
        check(js("return document.querySelectorAll('#recording-now .recording').length") == 0, "left Recording now")
        js("[...document.querySelectorAll('#recording-done button')].find(b => b.textContent === 'Play').click()")
        play_video("#recording-done video", 3)
        download = js("return document.querySelector('#recording-done a.button').getAttribute('href')")
        check(download.startswith("/api/v1/recordings/") and download.endswith("/file"), "download: " + repr(download))
        js("[...document.querySelectorAll('#recording-done button')].find(b => b.textContent === 'Keep').click()")
        wait_for("return [...document.querySelectorAll('#recording-done button')].some(b => b.textContent === 'Kept')", 20)
        js("document.getElementById('recordings-heading').scrollIntoView()")
        screenshot("recordings-done")
        report(done=True)
        """#
}
