import Foundation
import Testing
import TunerAPI
import TunerTesting

/// Time-shift through the real `tuner serve --timeshift`, a fake provider streaming real-time
/// MPEG-TS, ffprobe and headless Chromium: the web player pauses live TV and goes on from the
/// paused picture, rewinds a minute and comes back to live; any HLS player gets the window with
/// wall-clock times; nothing outside the window's own segments is served.
struct TimeshiftEndToEndTests {
    @Test("the web player pauses live TV for 20 s and goes on from the paused picture, then rewinds 60 s")
    func pauseAndRewindInTheBrowser() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .chromium, .chromedriver) else { return }
        let fixture = try await RecordingEndToEndTests.start(
            curl: tools[.curl], guide: RecordingEndToEndTests.placeholderGuide, arguments: ["--timeshift", "all"])
        defer { Task { await fixture.remove() } }
        let result = try await HeadlessChromium.run(
            steps: Self.browserSteps, arguments: [fixture.server.baseURL], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "timeshift"),
            timeout: .seconds(400))
        #expect(result.succeeded, "\(result.transcript)\n\(fixture.server.log.suffix(3000))")
        let report = HeadlessChromium.results(of: result)
        #expect(report["done"] as? Bool == true, "\(result.transcript)")
        // The window on disk holds what the provider sent while the channel played.
        let status = try #require(
            try await fixture.call(TimeshiftAnswer.self, "GET", "/api/v1/channels/1/timeshift").value)
        #expect(status.keeps && status.segments >= 10 && status.bytes > 0, "\(status)")
    }

    /// args: the server's base URL. Times are the picture's wall-clock time (the stream's origin,
    /// which the server said, plus the video's position) and how far behind live it is.
    static let browserSteps = #"""
        base = args[0]
        driver.get(base + "/channel/1/play")
        wait_for("return !document.getElementById('timeshift').hidden", 30)
        wait_for("return document.getElementById('video').currentTime > 3", 60)
        shown = "const v = document.getElementById('video'); return Number(document.getElementById('player').dataset.origin) + v.currentTime * 1000"
        behind = "const v = document.getElementById('video'); return (Date.now() - Number(document.getElementById('player').dataset.origin) - v.currentTime * 1000) / 1000"
        # A stream starts at the newest segment's keyframe (up to 5 s back), plus ffmpeg's start.
        check(js(behind) < 20, "live at first: %.1f s behind" % js(behind))
        started = time.time()
        screenshot("live")

        # Pause for 20 s: the picture stays, and live runs on without it.
        js("document.getElementById('video').pause()")
        paused_at = js("return document.getElementById('video').currentTime")
        paused_picture = js(shown)
        time.sleep(20)
        check(js("return document.getElementById('video').currentTime") == paused_at, "the picture held while paused")
        check(js("return document.getElementById('video').paused"), "still paused")
        screenshot("paused")

        # Resume: the next picture is the one after the paused one, not live's.
        resumed = time.time()
        js("document.getElementById('video').play()")
        wait_for("return document.getElementById('video').currentTime > arguments[0] + 0.5", 10, paused_at)
        first_frame = time.time() - resumed
        time.sleep(3)
        now_at = js("return document.getElementById('video').currentTime")
        check(paused_at < now_at < paused_at + 8, "went on from the paused moment: %.1f → %.1f" % (paused_at, now_at))
        check(js(behind) >= 19, "behind live by the pause: %.1f s" % js(behind))
        wait_for("return document.getElementById('ts-behind').textContent.includes('behind live')", 5)
        screenshot("resumed")

        # Once the window holds a minute and a half, rewind 60 s.
        while time.time() - started < 75:
            time.sleep(1)
        before_picture = js(shown)
        before_behind = js(behind)
        driver.find_element(By.ID, "ts-back60").click()
        wait_for("return Math.abs((Date.now() - Number(document.getElementById('player').dataset.origin) - document.getElementById('video').currentTime * 1000) / 1000 - arguments[0]) < 8 && !document.getElementById('video').paused && document.getElementById('video').readyState >= 3", 20, before_behind + 60)
        time.sleep(2)
        after_picture = js(shown)
        check(abs((before_picture - after_picture) / 1000 - 60 + 2) < 8, "rewound a minute: %.1f s" % ((before_picture - after_picture) / 1000))
        moving = js("return document.getElementById('video').currentTime")
        time.sleep(2)
        check(js("return document.getElementById('video').currentTime") > moving + 1, "plays after the rewind")
        screenshot("rewound")

        # Back to live.
        driver.find_element(By.ID, "ts-live").click()
        wait_for("return document.getElementById('ts-behind').textContent === 'Live'", 30)
        check(js(behind) < 20, "live again: %.1f s behind" % js(behind))
        report(done=True, first_frame=first_frame)
        """#

    @Test("the window as HLS with wall-clock times: ffprobe reads a span, a segment has Range, the rest is refused")
    func theWindowAsHLS() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await RecordingEndToEndTests.start(
            curl: tools[.curl], guide: RecordingEndToEndTests.placeholderGuide,
            arguments: ["--timeshift", "favourites", "--timeshift-window", "2m"])
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL
        // Channel 2 is no favourite: it keeps no window, and says how to make it keep one.
        let favourite = try await fixture.call(FavouriteAnswer.self, "PUT", "/api/v1/favourites/1")
        #expect(favourite.status == 200, "\(favourite.text)")
        let other = try await fixture.call(TimeshiftAnswer.self, "GET", "/api/v1/channels/2/timeshift")
        #expect(other.value?.keeps == false, "\(other.text)")
        let refused = try await Curl.fetch(tools[.curl], base + "/api/v1/channels/2/timeshift/stream.mp4")
        #expect(refused.status == 404 && String(decoding: refused.body, as: UTF8.self).contains("--timeshift"))

        // Channel 1 plays for a while (a player on its live stream), filling its window.
        let play = try #require(try await fixture.call(PlayAnswer.self, "GET", "/api/v1/channels/1/play").value)
        async let played = Curl.fetch(tools[.curl], play.proxyURL, timeout: .seconds(45))
        let started = Int64(Date().timeIntervalSince1970)
        var status = TimeshiftAnswer(
            channelID: 1, keeps: false, start: nil, end: nil, segments: 0, bytes: 0, startAt: nil, windowSeconds: 0,
            maxBytes: 0, playlistURL: "", streamURL: "")
        for _ in 0..<120 {
            status = try #require(
                try await fixture.call(TimeshiftAnswer.self, "GET", "/api/v1/channels/1/timeshift").value)
            if let start = status.start, let end = status.end, end - start >= 30 { break }
            try await Task.sleep(for: .seconds(1))
        }
        #expect(status.keeps && status.windowSeconds == 120, "\(status)")
        let end = try #require(status.end)

        // The live playlist: every complete segment with its wall-clock time.
        let live = try await Curl.fetch(tools[.curl], base + status.playlistURL)
        let text = String(decoding: live.body, as: UTF8.self)
        #expect(live.status == 200 && text.hasPrefix("#EXTM3U") && !text.contains("#EXT-X-ENDLIST"), "\(text)")
        let stamps = text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }
        #expect(stamps.count >= 5, "\(text)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let times = stamps.compactMap { formatter.date(from: String($0.dropFirst(25))) }
        #expect(times.count == stamps.count && times == times.sorted())
        #expect(times.first.map { $0.timeIntervalSince1970 >= Double(started - 60) } == true)

        // A span of it, as ffprobe (a real HLS client) reads it: its length, give or take a segment.
        let from = Int64(end) - 25
        let span = base + status.playlistURL + "?from=\(from)&to=\(from + 15)"
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", span],
            timeout: .seconds(60))
        let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(duration >= 14 && duration <= 27, "a 15 s span: \(probe.transcript)")

        // A segment by its name, with a Range; no other name, and no bad instant.
        let name = try #require(text.split(separator: "\n").first { $0.hasPrefix("segments/") })
        let segment = base + "/api/v1/channels/1/timeshift/" + name
        let ranged = try await Curl.fetch(tools[.curl], segment, options: ["-H", "Range: bytes=0-187"])
        #expect(ranged.status == 206 && ranged.body.count == 188 && ranged.body.first == 0x47)
        for path in [
            "/api/v1/channels/1/timeshift/segments/..%2f..%2fdata%2ftuner.sqlite",
            "/api/v1/channels/1/timeshift/segments/1-2.ts", "/api/v1/channels/1/timeshift/segments/%2e%2e",
            "/api/v1/channels/99/timeshift/" + name,
        ] {
            let answer = try await Curl.fetch(tools[.curl], base + path)
            #expect([400, 404].contains(answer.status), "\(path): \(answer.status)")
        }
        for query in ["?from=abc&to=1", "?from=1e300&to=1e301", "?from=\(from)", "?from=20&to=10", "?from=nan&to=inf"] {
            let answer = try await Curl.fetch(tools[.curl], base + status.playlistURL + query)
            #expect(answer.status == 400, "\(query): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        _ = try? await played
    }

    @Test(
        "local catch-up: a marked channel stays tuned; Xtream's /timeshift/ for a minute two minutes ago returns that minute; M3U, Xtream and the guide offer it"
    )
    func localCatchup() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe, .chromium, .chromedriver) else { return }
        // Time-shift off: the mark alone keeps the channel's window.
        let fixture = try await RecordingEndToEndTests.start(
            curl: tools[.curl], guide: RecordingEndToEndTests.placeholderGuide)
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL
        let user = try await fixture.call(
            OutputUserAnswer.self, "POST", "/api/v1/users",
            body: #"{"username":"viewer","password":"correct-horse","profiles":["default"]}"#)
        #expect(user.status == 201, "\(user.text)")
        for body in [
            #"{"kind":"catchup","channelIDs":[1]}"#, #"{"kind":"catchup","channelIDs":[],"keepDays":2}"#,
            #"{"kind":"catchup","channelIDs":[1],"keepDays":31}"#,
            #"{"kind":"catchup","channelIDs":[999],"keepDays":2}"#,
        ] {
            let refused = try await fixture.call(RecordingRule.self, "POST", "/api/v1/rules", body: body)
            #expect([400, 404].contains(refused.status), "\(body): \(refused.status) \(refused.text)")
        }
        let rule = try await fixture.call(
            RecordingRule.self, "POST", "/api/v1/rules", body: #"{"kind":"catchup","channelIDs":[1],"keepDays":2}"#)
        let ruleID = try #require(rule.value?.id, "\(rule.status) \(rule.text)")
        #expect(rule.value?.kind == .catchup && rule.value?.keepDays == 2)

        // Tuned by nobody but the mark.
        func tuned() async throws -> Bool {
            let answer = try await Curl.fetch(tools[.curl], base + "/api/v1/streams")
            let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            let streams = object?["streams"] as? [[String: Any]] ?? []
            return streams.contains { stream in
                (stream["channelID"] as? NSNumber)?.int64Value == 1
                    && (stream["viewers"] as? [[String: Any]] ?? []).contains {
                        $0["address"] as? String == "local catch-up"
                    }
            }
        }
        var waited = 0
        while try await !tuned(), waited < 60 {
            try await Task.sleep(for: .seconds(1))
            waited += 1
        }
        #expect(try await tuned(), "the marked channel is tuned")
        let tunedAt = Int64(Date().timeIntervalSince1970)

        // Offered as catch-up where the provider has none: the API, Xtream and the M3U.
        let channel = try await fixture.call(ChannelAnswer.self, "GET", "/api/v1/channels/1")
        #expect(channel.value?.catchup?.type == "local" && channel.value?.catchup?.days == 2, "\(channel.text)")
        let other = try await fixture.call(ChannelAnswer.self, "GET", "/api/v1/channels/2")
        #expect(other.value?.catchup == nil)
        let streams = try await Curl.fetch(
            tools[.curl], base + "/player_api.php?username=viewer&password=correct-horse&action=get_live_streams")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(streams.body)) as? [[String: Any]])
        let archive = Dictionary(
            list.map { (($0["stream_id"] as? NSNumber)?.int64Value ?? -1, ($0["tv_archive"] as? NSNumber)?.intValue) },
            uniquingKeysWith: { first, _ in first })
        #expect(archive[1] == 1 && archive[2] == 0, "\(list)")
        #expect(list.first { ($0["stream_id"] as? NSNumber)?.int64Value == 1 }?["tv_archive_duration"] as? Int == 2)
        let m3u = String(decoding: try await Curl.fetch(tools[.curl], base + "/output/default.m3u").body, as: UTF8.self)
        #expect(m3u.contains(#"catchup-days="2""#) && m3u.contains("/play/default/1?utc={utc}"), "\(m3u)")

        // The minute two minutes ago, once the window holds it.
        let minute = (tunedAt + 5 + 59) / 60 * 60
        while Int64(Date().timeIntervalSince1970) < minute + 125 { try await Task.sleep(for: .seconds(1)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd:HH-mm"
        let stamp = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(minute)))
        let path = "/timeshift/viewer/correct-horse/1/\(stamp)/1.ts"
        let file = fixture.workspace.file("minute.ts")
        let answer = try await Curl.fetch(tools[.curl], base + path, bodyPath: file)
        #expect(answer.status == 200 && answer.header("Content-Type") == "video/mp2t", "\(answer.status)")
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", file],
            timeout: .seconds(60))
        let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        // Whole segments: from the keyframe at or before the minute to the segment holding its end.
        #expect(duration >= 59 && duration <= 72, "that minute: \(probe.transcript)")
        // The same bytes the window's playlist names for that minute, whose wall-clock time is said.
        let playlist = String(
            decoding: try await Curl.fetch(
                tools[.curl], base + "/api/v1/channels/1/timeshift/index.m3u8?from=\(minute)&to=\(minute + 60)"
            ).body, as: UTF8.self)
        let lines = playlist.split(separator: "\n").map(String.init)
        let isoFormatter = ISO8601DateFormatter()
        isoFormatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let firstTime = try #require(
            lines.first { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.flatMap {
                isoFormatter.date(from: String($0.dropFirst(25)))
            })
        #expect(
            firstTime.timeIntervalSince1970 <= Double(minute) && firstTime.timeIntervalSince1970 > Double(minute - 10))
        let firstName = try #require(lines.first { $0.hasPrefix("segments/") })
        let segment = try await Curl.fetch(tools[.curl], base + "/api/v1/channels/1/timeshift/" + firstName)
        let minuteBytes = try #require(FileManager.default.contents(atPath: file))
        #expect(segment.body.count > 0 && [UInt8](minuteBytes.prefix(segment.body.count)) == segment.body)

        // The M3U's catch-up template and the web player's catch-up link play it too.
        let half = fixture.workspace.file("half.ts")
        _ = try await Curl.fetch(tools[.curl], base + "/play/default/1?utc=\(minute)&duration=30", bodyPath: half)
        let viaM3U = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", half],
            timeout: .seconds(60))
        let m3uDuration = Double(viaM3U.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(m3uDuration >= 29 && m3uDuration <= 42, "\(viaM3U.transcript)")
        let link = try await fixture.call(
            CatchupAnswer.self, "GET", "/api/v1/channels/1/catchup?start=\(minute)&end=\(minute + 30)")
        let url = try #require(link.value?.proxyURL, "\(link.text)")
        #expect(url.hasSuffix("/api/v1/channels/1/timeshift/stream.mp4?from=\(minute)&to=\(minute + 30)"))
        let mp4 = fixture.workspace.file("catchup.mp4")
        _ = try await Curl.fetch(tools[.curl], url, bodyPath: mp4)
        let browser = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "stream=codec_name", "-of", "default=noprint_wrappers=1:nokey=1", mp4],
            timeout: .seconds(60))
        #expect(browser.output.contains("h264") && browser.output.contains("aac"), "\(browser.transcript)")
        // The web player plays that past minute from the window, as the guide opens it.
        let played = try await HeadlessChromium.run(
            steps: #"""
                driver.get(args[0] + "/channel/1/play?at=" + args[1])
                wait_for("return document.getElementById('player-status').textContent.includes('Catch-up from')", 30)
                wait_for("return document.getElementById('video').currentTime > 3", 60)
                source = js("return document.getElementById('video').src")
                check("/timeshift/stream.mp4?from=" in source, "from the window: " + source)
                screenshot("catchup")
                report(done=True)
                """#, arguments: [base, String(minute)], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "timeshift"),
            timeout: .seconds(180))
        #expect(played.succeeded, "\(played.transcript)")
        #expect(HeadlessChromium.results(of: played)["done"] as? Bool == true, "\(played.transcript)")

        // What the window does not hold, and hostile paths, are refused.
        for hostile in [
            "/timeshift/viewer/correct-horse/1/\(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(minute - 7200))))/1.ts",
            "/timeshift/viewer/correct-horse/1/\(stamp)/2.ts", "/timeshift/viewer/correct-horse/0/\(stamp)/1.ts",
            "/timeshift/viewer/correct-horse/99999/\(stamp)/1.ts",
            "/timeshift/viewer/correct-horse/1/2026-13-01:00-00/1.ts",
            "/timeshift/viewer/correct-horse/1/2026-02-30:00-00/1.ts", "/timeshift/viewer/wrong/1/\(stamp)/1.ts",
            "/timeshift/viewer/correct-horse/1/\(stamp)/..%2f1.ts",
        ] {
            let refused = try await Curl.fetch(tools[.curl], base + hostile)
            #expect((400..<500).contains(refused.status), "\(hostile): \(refused.status)")
            #expect(!String(decoding: refused.body, as: UTF8.self).contains("correct-horse"))
        }

        // The mark removed: the channel is let go, and no catch-up is offered.
        let removed = try await fixture.call(MessageAnswer.self, "DELETE", "/api/v1/rules/\(ruleID)")
        #expect(removed.status == 200, "\(removed.text)")
        waited = 0
        while try await tuned(), waited < 30 {
            try await Task.sleep(for: .seconds(1))
            waited += 1
        }
        #expect(try await !tuned(), "let go once no rule marks it")
        let after = try await fixture.call(ChannelAnswer.self, "GET", "/api/v1/channels/1")
        #expect(after.value?.catchup == nil, "\(after.text)")
    }
}
