import Foundation
import MediaFormats
import Testing
import TunerTesting

/// HDHomeRun's `?transcode=<name>` and `?duration=<seconds>` through the real `tuner serve`, from
/// a fake provider with a 1280x720 channel and a 320x240 one: each name gives its size (never
/// larger than the source), an unknown name is refused with the list, a name is a session of its
/// own shared by its viewers, and a duration ends that viewer's answer.
@Suite(.serialized) struct TranscodeSizesEndToEndTests {
    struct Fixture {
        let workspace: Workspace
        let provider: LiveTSOrigin
        let files: TestOrigin
        let server: TunerProcess

        func remove() async {
            _ = await server.stop()
            await provider.shutdown()
            try? await files.shutdown()
            workspace.remove()
        }

        /// `/play/default/<number>` with `query`: channel 1 is 1280x720, channel 2 is 320x240.
        func url(_ number: Int, _ query: String = "") -> String {
            server.baseURL + "/play/default/\(number)" + (query.isEmpty ? "" : "?" + query)
        }
    }

    /// A provider with channels `wide` (1280x720) and `small` (320x240), two seconds each looped,
    /// and a server with them imported (numbered 1 and 2). Sessions close as soon as their last
    /// viewer leaves, so one name's ffmpeg is gone before the next starts.
    static func start(curl: String) async throws -> Fixture {
        let workspace = try Workspace()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let provider = try await LiveTSOrigin.start()
        for (index, (name, size)) in [("wide", "1280x720"), ("small", "320x240")].enumerated() {
            let path = workspace.file("\(name).ts")
            try await LiveTSOrigin.makeStream(
                at: path, seconds: 2, firstPID: 0x100 + index * 0x10, serviceID: index + 1, size: size)
            try provider.serve(name, file: path, seconds: 2)
        }
        let list = """
            #EXTM3U
            #EXTINF:-1 tvg-id="wide.uk",Wide
            \(provider.url("wide"))
            #EXTINF:-1 tvg-id="small.uk",Small
            \(provider.url("small"))
            """
        try Data(list.utf8).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        let files = try await TestOrigin.start()
        files.serveDirectory(served)
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--live-linger", "0", "--live-stall-timeout", "30"])
        let added = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"location":"\#(files.baseURL)/static/list.m3u"}"#,
            ])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let id = try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number)
        let refreshed = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources/\(Int(id))/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200)
        return Fixture(workspace: workspace, provider: provider, files: files, server: server)
    }

    /// ffprobe's `codec,width,height,display aspect,frame rate` of the first video stream in `body`.
    static func probe(_ body: [UInt8], ffprobe: String, workspace: Workspace) async throws -> String {
        let path = workspace.file("capture-\(UUID().uuidString.prefix(6)).ts")
        try Data(body).write(to: URL(fileURLWithPath: path))
        let probe = try await Subprocess.run(
            ffprobe,
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,width,height,display_aspect_ratio,r_frame_rate", "-of", "csv=p=0", path,
            ])
        // The first line: ffprobe lists the stream again under its program.
        return probe.output.split(separator: "\n").first.map(String.init) ?? probe.transcript
    }

    /// The `ffmpeg` children of process `parent` (from /proc: Linux, where CI runs).
    static func ffmpegChildren(of parent: Int32) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return false }
            // `pid (comm) state ppid …`: the name may hold spaces, so it is cut at the parentheses.
            let name = stat[stat.index(after: open)..<close]
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return name == "ffmpeg" && fields.count > 1 && Int32(fields[1]) == parent
        }.count
    }

    @Test("each transcode name gives its size from a 1280x720 and a 320x240 channel, never larger than the source")
    func sizesByName() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        // SiliconDust's sizes for a 16:9 picture; the 4:3 one already fits every box.
        let wide = [
            "native": "1280,720,16:9", "heavy": "1280,720,16:9", "mobile": "1280,720,16:9",
            "internet720": "1280,720,16:9", "internet540": "960,540,16:9", "internet480": "848,480,16:9",
            "internet360": "640,360,16:9", "internet240": "432,240,16:9",
        ]
        for (name, size) in wide.sorted(by: { $0.key < $1.key }) {
            for (number, expected) in [(1, size), (2, "320,240,4:3")] {
                // `duration` ends each answer after two seconds; curl's own limit only guards a hang.
                let response = try await Curl.fetch(
                    tools[.curl], fixture.url(number, "transcode=\(name)&duration=2"), timeout: .seconds(90))
                #expect(response.status == 200, "\(name) on channel \(number): \(response.process.transcript)")
                let line = try await Self.probe(response.body, ffprobe: tools[.ffprobe], workspace: fixture.workspace)
                // The sources play at 25 frames a second, under every name's limit.
                #expect(
                    line == "h264,\(expected),25/1",
                    "\(name) on channel \(number) (\(response.body.count) bytes)\n\(fixture.server.log.suffix(2000))")
            }
        }
        // Jellyfin appends its query to a lineup URL that has one already (`?key=…` beyond
        // loopback; here the key is not needed): the name still counts.
        let appended = try await Curl.fetch(
            tools[.curl], fixture.url(1, "key=any?transcode=internet240&duration=2"), timeout: .seconds(90))
        let line = try await Self.probe(appended.body, ffprobe: tools[.ffprobe], workspace: fixture.workspace)
        #expect(appended.status == 200 && line == "h264,432,240,16:9,25/1", "\(line)")
    }

    @Test("an unknown transcode name or a bad duration is 400, and the answer lists the names")
    func refusals() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let bogus = try await Curl.fetch(tools[.curl], fixture.url(2, "transcode=bogus"), timeout: .seconds(30))
        let text = String(decoding: bogus.body, as: UTF8.self)
        #expect(bogus.status == 400, "\(text)")
        for name in ["native", "heavy", "mobile", "internet720", "internet540", "internet480", "internet360"] {
            #expect(text.contains(name), "\(text)")
        }
        #expect(text.contains("internet240") && !text.contains("bogus"), "\(text)")
        // Even where the name would not apply (the profile chosen is remux).
        let named = try await Curl.fetch(
            tools[.curl], fixture.url(2, "profile=remux&transcode=internet999"), timeout: .seconds(30))
        #expect(named.status == 400)
        for duration in ["0", "-3", "abc", "3.5", "99999999999999999999", "700000"] {
            let refused = try await Curl.fetch(
                tools[.curl], fixture.url(2, "duration=\(duration)"), timeout: .seconds(30))
            #expect(refused.status == 400, "duration=\(duration): \(String(decoding: refused.body, as: UTF8.self))")
        }
        // None of these opened anything at the provider.
        #expect(fixture.provider.connectionCount("small") == 0)
    }

    @Test("two viewers of one channel and name share one ffmpeg; another name on that channel is another")
    func oneFFmpegPerName() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let directory = fixture.workspace.path
        // Both names give 320x240 from this channel: what tells them apart is the session's key.
        let first = try CurlStream(tools[.curl], fixture.url(2, "transcode=internet360"), directory: directory)
        try await first.wait(for: "transcoded bytes") { $0.count >= 100 * TSPacket.size }
        let second = try CurlStream(tools[.curl], fixture.url(2, "transcode=internet360"), directory: directory)
        let other = try CurlStream(tools[.curl], fixture.url(2, "transcode=internet240"), directory: directory)
        for viewer in [second, other] {
            try await viewer.wait(for: "transcoded bytes") { $0.count >= 100 * TSPacket.size }
        }
        let children = Self.ffmpegChildren(of: fixture.server.pid)
        let listed = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/api/v1/streams")
        let streams =
            try JSONDecoder().decode([String: JSONValue].self, from: Data(listed.body))["streams"]?.array?
            .compactMap(\.object) ?? []
        let a = await first.stop()
        let b = await second.stop()
        let c = await other.stop()

        #expect(children == 2, "one ffmpeg per (channel, name): \(children)")
        let transcoding = streams.filter { $0["profile"]?.string == "transcode" }
        #expect(
            transcoding.compactMap { $0["viewers"]?.array?.count }.sorted() == [1, 2],
            "\(String(decoding: listed.body, as: UTF8.self))")
        // Each session says which size it makes.
        let sizes = Dictionary(
            transcoding.compactMap { stream in
                stream["transcodeSize"]?.string.map { ($0, stream["viewers"]?.array?.count ?? 0) }
            },
            uniquingKeysWith: +)
        #expect(sizes == ["internet360": 2, "internet240": 1], "\(sizes)")
        // Both ffmpegs read the channel's one direct session: one connection to the provider.
        #expect(fixture.provider.connectionCount("small") == 1)
        for response in [a, b, c] { #expect(response.status == 200) }
    }

    @Test("duration ends that viewer's answer, while a viewer without it goes on")
    func durationEndsTheAnswer() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let watching = try CurlStream(tools[.curl], fixture.url(2), directory: fixture.workspace.path)
        try await watching.wait(for: "the stream") { $0.count >= 100 * TSPacket.size }
        // Far more time than three seconds: the answer has to end by itself, cleanly, for curl to
        // succeed (at curl's limit it would fail with a timeout).
        let timed = try await Curl.fetch(tools[.curl], fixture.url(2, "duration=3"), timeout: .seconds(90))
        let seen = watching.body.count
        try await watching.wait(for: "more of the stream after the other answer ended") {
            $0.count >= seen + 100 * TSPacket.size
        }
        let untimed = await watching.stop()

        #expect(timed.status == 200)
        #expect(timed.process.succeeded, "\(timed.process.transcript)")
        let checked = LiveChannelsEndToEndTests.check(timed.body)
        #expect(checked.aligned && checked.packets > 100, "\(checked)")
        let line = try await Self.probe(timed.body, ffprobe: tools[.ffprobe], workspace: fixture.workspace)
        #expect(line.hasPrefix("h264,320,240"), "\(line)")
        #expect(untimed.status == 200)
        // The same session served both: one connection to the provider.
        #expect(fixture.provider.connectionCount("small") == 1)
    }
}
