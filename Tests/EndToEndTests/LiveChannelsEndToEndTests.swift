import Foundation
import MediaFormats
import Testing
import TunerTesting

/// Live channels through the real `tuner serve`, from a fake provider that streams endless
/// MPEG-TS in real time and can stall, send garbage or die on demand: viewers share one upstream,
/// limits answer 503, a dead stream fails over without the viewer noticing, and the remux and
/// transcode profiles run one ffmpeg per session.
@Suite(.serialized) struct LiveChannelsEndToEndTests {
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
    }

    /// A provider with channels `one`, `two` (source A) and `backup` (source B, same tvg-id as
    /// `one`), and a server with both sources imported.
    static func start(curl: String, arguments: [String] = []) async throws -> Fixture {
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
        let listA = """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.uk",One HD
            \(provider.url("one"))
            #EXTINF:-1 tvg-id="two.uk",Two
            \(provider.url("two"))
            """
        // The last channel's URL carries an account, as Xtream stream URLs do; the provider has no such
        // channel (it answers 503).
        let listB = """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.uk",UK: One
            \(provider.url("backup"))
            #EXTINF:-1 tvg-id="secret.uk",Secret
            \(provider.url("live/acct/s3cretpw/9"))
            """
        try Data(listA.utf8).write(to: URL(fileURLWithPath: served + "/a.m3u"))
        try Data(listB.utf8).write(to: URL(fileURLWithPath: served + "/b.m3u"))
        let files = try await TestOrigin.start()
        files.serveDirectory(served)
        let server = try await TunerProcess.serve(data: workspace.file("data"), arguments: arguments)
        for list in ["a.m3u", "b.m3u"] {
            let added = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/sources",
                options: [
                    "-X", "POST", "-H", "Content-Type: application/json", "--data",
                    #"{"location":"\#(files.baseURL)/static/\#(list)"}"#,
                ])
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            let id = try #require(
                try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number)
            let refreshed = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/sources/\(Int(id))/refresh", options: ["-X", "POST"])
            #expect(refreshed.status == 200)
        }
        return Fixture(workspace: workspace, provider: provider, files: files, server: server)
    }

    /// Reads `bytes` as MPEG-TS: every packet in place, and the continuity errors after the first
    /// `skipping` packets (a joining viewer's first packets repeat the PAT and PMT).
    static func check(_ bytes: [UInt8], skipping: Int = 2) -> (
        packets: Int, aligned: Bool, errors: Int, pids: Set<UInt16>
    ) {
        var last: [UInt16: TSPacket] = [:]
        var errors = 0
        var pids = Set<UInt16>()
        let count = bytes.count / TSPacket.size
        for index in 0..<count {
            let start = index * TSPacket.size
            guard let packet = TSPacket(bytes[start..<start + TSPacket.size]) else {
                return (index, false, errors, pids)
            }
            pids.insert(packet.pid)
            if index >= skipping, let previous = last[packet.pid], !previous.isFollowed(by: packet) { errors += 1 }
            last[packet.pid] = packet
        }
        return (count, true, errors, pids)
    }

    static func streams(_ fixture: Fixture, curl: String) async throws -> [[String: JSONValue]] {
        let listed = try await Curl.fetch(curl, fixture.server.baseURL + "/api/v1/streams")
        let body = try JSONDecoder().decode([String: JSONValue].self, from: Data(listed.body))
        return body["streams"]?.array?.compactMap(\.object) ?? []
    }

    /// Whether `bytes` hold a video keyframe of channel one (a random access point on 0x100).
    static func holdsKeyframe(_ bytes: [UInt8]) -> Bool {
        stride(from: 0, to: bytes.count - TSPacket.size + 1, by: TSPacket.size).contains { start in
            guard let packet = TSPacket(bytes[start..<start + TSPacket.size]) else { return false }
            return packet.pid == 0x100 && packet.randomAccess && packet.payloadUnitStart
        }
    }

    /// Polls the streams listing until `condition` holds (at most 60 s); returns the last listing.
    static func waitForStreams(
        _ fixture: Fixture, curl: String, _ condition: ([[String: JSONValue]]) -> Bool
    ) async throws -> [[String: JSONValue]] {
        var listed = try await streams(fixture, curl: curl)
        for _ in 0..<600 where !condition(listed) {
            try await Task.sleep(for: .milliseconds(100))
            listed = try await streams(fixture, curl: curl)
        }
        return listed
    }

    @Test("viewers of one channel share one upstream, each with a clean stream from a keyframe")
    func viewersShareOneUpstream() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        // A loaded machine can starve the in-process provider for seconds; a long stall timeout
        // keeps those pauses from starting a second upstream (failover has tests of its own).
        let fixture = try await Self.start(curl: tools[.curl], arguments: ["--live-stall-timeout", "30"])
        defer { Task { await fixture.remove() } }
        let url = fixture.server.baseURL + "/play/default/1"

        // Each step waits for what it needs rather than for a time, so the viewers overlap
        // however slowly curl starts. The others join once the first has had a keyframe: the
        // session then holds one to start them at.
        let first = try CurlStream(tools[.curl], url, directory: fixture.workspace.path)
        try await first.wait(for: "a keyframe", Self.holdsKeyframe)
        let second = try CurlStream(tools[.curl], url, directory: fixture.workspace.path)
        let third = try CurlStream(tools[.curl], url, directory: fixture.workspace.path)
        let listed = try await Self.waitForStreams(fixture, curl: tools[.curl]) {
            $0.first?["viewers"]?.array?.count == 3
        }
        // ffmpeg, as a player, on the same channel while the others watch: still the one upstream.
        let played = try await Subprocess.run(
            tools[.ffmpeg], ["-v", "error", "-t", "2", "-i", url, "-c", "copy", "-f", "null", "-"],
            timeout: .seconds(60))
        for viewer in [first, second, third] {
            try await viewer.wait(for: "200 packets") { $0.count >= 200 * TSPacket.size }
        }
        let a = await first.stop()
        let b = await second.stop()
        let c = await third.stop()

        #expect(played.succeeded, "\(played.transcript)")
        #expect(fixture.provider.connectionCount("one") == 1, "one upstream for four viewers")
        #expect(listed.count == 1)
        #expect(listed.first?["viewers"]?.array?.count == 3)
        #expect(listed.first?["profile"]?.string == "direct")
        for response in [a, b, c] {
            #expect(response.status == 200)
            #expect(response.headers.first { $0.0.lowercased() == "content-type" }?.1 == "video/mp2t")
            let checked = Self.check(response.body)
            #expect(checked.aligned && checked.packets >= 200, "\(checked)")
            #expect(checked.errors == 0, "continuity errors: \(checked.errors)")
            // Channel one's PIDs only (0x100…), the PAT, the SDT and the PMT.
            #expect(checked.pids.isSubset(of: [0, 0x11, 0x1001, 0x100, 0x101]), "\(checked.pids)")
        }
        // A joining viewer starts where a player can decode: the PAT, the PMT, then a keyframe.
        for joined in [b.body, c.body] {
            #expect(TSPacket(joined[0..<188])?.pid == 0 && TSPacket(joined[188..<376])?.pid == 0x1001)
            let keyframe = TSPacket(joined[376..<564])
            #expect(keyframe?.randomAccess == true && keyframe?.pid == 0x100, "a video keyframe")
        }
        // ffprobe reads the shared stream as H.264 and AAC.
        let path = fixture.workspace.file("joined.ts")
        try Data(b.body).write(to: URL(fileURLWithPath: path))
        let probe = try await Subprocess.run(
            tools[.ffprobe], ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path])
        #expect(probe.output.contains("h264") && probe.output.contains("aac"), "\(probe.transcript)")

        // Once the last viewer has gone, the session closes its upstream (linger 5 s by default).
        let remaining = try await Self.waitForStreams(fixture, curl: tools[.curl]) { $0.isEmpty }
        #expect(remaining.isEmpty)
        for _ in 0..<100 where fixture.provider.openConnections("one") != 0 {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(fixture.provider.openConnections("one") == 0)
    }

    static func patchSource(_ fixture: Fixture, curl: String, id: Int, limit: Int) async throws {
        let patched = try await Curl.fetch(
            curl, fixture.server.baseURL + "/api/v1/sources/\(id)",
            options: [
                "-X", "PATCH", "-H", "Content-Type: application/json", "--data", #"{"maxConnections":\#(limit)}"#,
            ])
        #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
    }

    @Test("a full account: the same channel joins, another takes a pooled account, else 503 with Retry-After")
    func providerLimits() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL
        try await Self.patchSource(fixture, curl: tools[.curl], id: 1, limit: 1)

        // The viewers stay long enough that a loaded machine still lists both sessions after the
        // refusal below.
        async let holder = Curl.fetch(tools[.curl], base + "/play/default/2", timeout: .seconds(14))
        try await Task.sleep(for: .milliseconds(1500))
        // Channel two plays on source A's one connection: a second viewer joins it.
        async let joiner = Curl.fetch(tools[.curl], base + "/play/default/2", timeout: .seconds(12))
        // Channel one's account is full: its alternative on source B (same tvg-id) plays instead.
        async let pooled = Curl.fetch(tools[.curl], base + "/play/default/1", timeout: .seconds(12))
        try await Task.sleep(for: .milliseconds(1000))
        try await Self.patchSource(fixture, curl: tools[.curl], id: 2, limit: 1)
        // Now both accounts are in use: a third channel gets a clear answer, not a frozen picture
        // (the backup channel itself, through the proxy link the API gives for it).
        let link = try await Curl.fetch(tools[.curl], base + "/api/v1/channels/3/play")
        let proxyURL = try #require(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(link.body))["proxyURL"]?.string)
        let refused = try await Curl.fetch(tools[.curl], proxyURL, timeout: .seconds(3))
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        let (held, joined, moved) = try await (holder, joiner, pooled)

        #expect(held.status == 200 && joined.status == 200 && moved.status == 200)
        #expect(Self.check(joined.body).packets > 50 && Self.check(moved.body).packets > 50)
        #expect(fixture.provider.connectionCount("two") == 1, "the joiner shares the holder's upstream")
        #expect(fixture.provider.connectionCount("one") == 0 && fixture.provider.connectionCount("backup") == 1)
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "10")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("in use"))
        #expect(listed.count == 2)
        #expect(Set(listed.compactMap { $0["sourceID"]?.number }) == [1, 2])
    }

    @Test("a dead, garbled, stalled or frozen upstream fails over while the viewer stays connected")
    func failover() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl], arguments: ["--live-stall-timeout", "2"])
        defer { Task { await fixture.remove() } }
        let provider = fixture.provider
        async let viewer = Curl.fetch(tools[.curl], fixture.server.baseURL + "/play/default/1", timeout: .seconds(30))
        // Playing from "one" before it dies (a loaded machine may take longer than usual to start).
        for _ in 0..<200 where provider.connectionCount("one") == 0 { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(2))
        provider.set("one", .dead)  // ends the stream: the backup takes over at once
        try await Task.sleep(for: .seconds(2))
        provider.set("one", .normal)
        provider.set("backup", .garbage)  // bytes, no packets: back to one after 2 s
        try await Task.sleep(for: .seconds(5))
        provider.set("backup", .normal)
        provider.set("one", .stall)  // no bytes: to the backup after 2 s
        try await Task.sleep(for: .seconds(4))
        provider.set("one", .normal)
        provider.set("backup", .frozen)  // packets without a clock: back to one after 5 s
        try await Task.sleep(for: .seconds(8))
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        let response = try await viewer

        #expect(response.status == 200)
        // The connection stayed open to the end (curl stopped it: exit status 28, time limit).
        #expect(response.process.status == 28, "\(response.process.transcript)")
        let checked = Self.check(response.body)
        #expect(checked.aligned && checked.packets > 2_000, "\(checked)")
        let failovers = listed.first?["failovers"]?.array?.compactMap { $0.object?["reason"]?.string } ?? []
        #expect(failovers.count == 4, "\(failovers)")
        #expect(failovers.first?.contains("ended") == true, "\(failovers)")
        #expect(failovers.dropFirst().first?.contains("not a transport stream") == true, "\(failovers)")
        #expect(failovers.dropFirst(2).first?.contains("stalled") == true, "\(failovers)")
        #expect(failovers.dropFirst(3).first?.contains("no new PCR") == true, "\(failovers)")
        #expect(provider.connectionCount("one") == 3 && provider.connectionCount("backup") == 2)
    }

    @Test("remux and transcode run one ffmpeg per session on the channel's one upstream")
    func profiles() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await Self.start(
            curl: tools[.curl],
            arguments: ["--transcode-args=-c:v libx264 -preset ultrafast -vf scale=160:90 -g 25 -c:a aac -b:a 32k"])
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL + "/play/default/1"
        async let direct = Curl.fetch(tools[.curl], base, timeout: .seconds(8))
        try await Task.sleep(for: .milliseconds(1000))
        async let remux = Curl.fetch(tools[.curl], base + "?profile=remux", timeout: .seconds(6))
        // The transcode profile with the user's arguments (a named size has its own: see TranscodeSizesEndToEndTests).
        async let transcode = Curl.fetch(tools[.curl], base + "?profile=transcode", timeout: .seconds(6))
        try await Task.sleep(for: .milliseconds(4000))
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        let bad = try await Curl.fetch(tools[.curl], base + "?profile=sideways", timeout: .seconds(3))
        let (plain, copied, small) = try await (direct, remux, transcode)

        #expect(fixture.provider.connectionCount("one") == 1, "ffmpeg reads the direct session")
        #expect(Set(listed.compactMap { $0["profile"]?.string }) == ["direct", "remux", "transcode"])
        #expect(bad.status == 400)
        for (response, size) in [(plain, "320,180"), (copied, "320,180"), (small, "160,90")] {
            #expect(response.status == 200)
            let path = fixture.workspace.file("capture-\(UUID().uuidString.prefix(6)).ts")
            try Data(response.body).write(to: URL(fileURLWithPath: path))
            let probe = try await Subprocess.run(
                tools[.ffprobe],
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of",
                    "csv=p=0", path,
                ])
            // The first line: ffprobe lists the stream again under its program.
            let line = probe.output.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                line == "h264,\(size)",
                "\(probe.transcript) (\(response.body.count) bytes)\n\(fixture.server.log.suffix(3000))")
        }
    }

    @Test("DELETE /api/v1/streams/{id} stops a session and ends its viewers' streams")
    func stopSession() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        async let viewer = Curl.fetch(tools[.curl], fixture.server.baseURL + "/play/default/2", timeout: .seconds(20))
        try await Task.sleep(for: .seconds(2))
        let id = try #require(try await Self.streams(fixture, curl: tools[.curl]).first?["id"]?.string)
        let unknown = try await Curl.fetch(
            tools[.curl], fixture.server.baseURL + "/api/v1/streams/nope", options: ["-X", "DELETE"])
        // The CLI lists the session (channel, profile, viewer) and stops it through the API.
        let data = fixture.server.dataDirectory
        let listed = try await TunerProcess.run(["streams", "--data", data])
        #expect(listed.output.contains("\(id)\tTwo (channel 2)\tdirect"), "\(listed.transcript)")
        #expect(listed.output.contains("viewer 127.0.0.1"), "\(listed.transcript)")
        let stopped = try await TunerProcess.run(["streams", "stop", id, "--data", data])
        let started = ContinuousClock.now
        let response = try await viewer
        #expect(unknown.status == 404)
        #expect(stopped.succeeded && stopped.output.contains("stopped \(id)"), "\(stopped.transcript)")
        #expect(response.status == 200 && response.process.status == 0, "\(response.process.transcript)")
        #expect(ContinuousClock.now - started < .seconds(10), "the viewer's stream ended with the session")
        #expect(try await Self.streams(fixture, curl: tools[.curl]).isEmpty)
        try await Task.sleep(for: .milliseconds(500))
        #expect(fixture.provider.openConnections("two") == 0)
    }

    @Test("output profiles and Xtream logins choose the stream profile; a login's limit counts its streams")
    func perPlayerProfilesAndLoginLimits() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let data = fixture.server.dataDirectory
        let changed = try await TunerProcess.run([
            "outputs", "change", "default", "--stream-profile", "remux", "--data", data,
        ])
        #expect(changed.succeeded, "\(changed.transcript)")
        let refused = try await TunerProcess.run([
            "outputs", "change", "default", "--stream-profile", "sideways", "--data", data,
        ])
        #expect(!refused.succeeded && refused.transcript.contains("direct, remux or transcode"))
        let added = try await Subprocess.run(
            "/bin/sh",
            [
                "-c",
                "echo 'a-long-password' | \"\(TunerProcess.binary)\" users add tv --password-stdin "
                    + "--max-connections 1 --stream-profile direct --data \"\(data)\"",
            ])
        #expect(added.succeeded, "\(added.transcript)")

        async let viaProfile = Curl.fetch(
            tools[.curl], fixture.server.baseURL + "/play/default/1", timeout: .seconds(5))
        let login = fixture.server.baseURL + "/live/tv/a-long-password"
        async let viaLogin = Curl.fetch(tools[.curl], login + "/2.ts", timeout: .seconds(5))
        try await Task.sleep(for: .seconds(2))
        // The login may have one stream: a second one, of any channel, is refused with a reason.
        let second = try await Curl.fetch(tools[.curl], login + "/1.ts", timeout: .seconds(3))
        let account = try await Curl.fetch(
            tools[.curl], fixture.server.baseURL + "/player_api.php?username=tv&password=a-long-password")
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        let (profiled, logged) = try await (viaProfile, viaLogin)

        #expect(profiled.status == 200 && logged.status == 200)
        #expect(second.status == 503 && String(decoding: second.body, as: UTF8.self).contains("user 'tv'"))
        #expect(String(decoding: account.body, as: UTF8.self).contains(#""active_cons":"1""#), "\(account)")
        let profiles = Dictionary(
            listed.compactMap { stream in stream["channelID"]?.number.map { (Int($0), stream["profile"]?.string ?? "") }
            }, uniquingKeysWith: { a, b in a + "," + b })
        #expect(profiles[1]?.contains("remux") == true, "the output profile's choice: \(listed)")
        #expect(profiles[2] == "direct", "the login's choice: \(listed)")
        let viewer = listed.first { $0["channelID"]?.number == 2 }?["viewers"]?.array?.first?.object
        #expect(viewer?["user"]?.string == "tv")
    }

    @Test("a channel that cannot be played gets 502 with the reason, and its account's password appears nowhere")
    func unplayableChannelKeepsItsSecrets() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let link = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/api/v1/channels/4/play")
        let proxyURL = try #require(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(link.body))["proxyURL"]?.string)
        #expect(!proxyURL.contains("s3cretpw"))
        let answer = try await Curl.fetch(tools[.curl], proxyURL, timeout: .seconds(20))
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 502, "\(text)")
        #expect(text.contains("HTTP 503"), "the reason: \(text)")
        let xtream = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/api/v1/streams")
        try await Task.sleep(for: .milliseconds(300))
        for place in [text, String(decoding: xtream.body, as: UTF8.self), fixture.server.log] {
            #expect(!place.contains("s3cretpw"), "a provider's password leaked: \(place.suffix(500))")
        }
        #expect(fixture.server.log.contains("live upstream failed"), "the failure was logged")
    }

    @Test("an HLS channel played through the proxy holds one connection of its source while it plays")
    func hlsChannelsCountAgainstTheirSource() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let hls = try await HLSFixtures.shared()
        try fixture.files.serveLive(hls, name: "news")
        try fixture.files.serveLive(hls, name: "sport")
        let list = """
            #EXTM3U
            #EXTINF:-1 tvg-id="news.hls",News HLS
            \(fixture.files.baseURL)/live/news/index.m3u8
            #EXTINF:-1 tvg-id="sport.hls",Sport HLS
            \(fixture.files.baseURL)/live/sport/index.m3u8
            """
        let site = fixture.workspace.file("hls-site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Data(list.utf8).write(to: URL(fileURLWithPath: site + "/c.m3u"))
        fixture.files.serveDirectory(site)
        let base = fixture.server.baseURL
        let added = try await Curl.fetch(
            tools[.curl], base + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"location":"\#(fixture.files.baseURL)/static/c.m3u"}"#,
            ])
        let id = Int(
            try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number))
        #expect(
            try await Curl.fetch(tools[.curl], base + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"]).status
                == 200)
        try await Self.patchSource(fixture, curl: tools[.curl], id: id, limit: 1)

        func play(_ item: Int) async throws -> CurlResponse {
            let link = try await Curl.fetch(tools[.curl], base + "/api/v1/channels/\(item)/play")
            let body = try JSONDecoder().decode([String: JSONValue].self, from: Data(link.body))
            let url = try #require(body["proxyURL"]?.string)
            #expect(body["hlsURL"]?.string == url, "an HLS channel plays in browsers as it is")
            return try await Curl.fetch(tools[.curl], url)
        }
        // Items 5 and 6: after source A's two channels and source B's two.
        let news = try await play(5)
        #expect(news.status == 200 && String(decoding: news.body, as: UTF8.self).contains("#EXTM3U"))
        let again = try await play(5)
        #expect(again.status == 200, "the same channel's player polls its playlist")
        let sport = try await play(6)
        #expect(sport.status == 503, "the source's one connection is in use")
        #expect(sport.header("Retry-After") == "10")
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        #expect(listed.contains { $0["profile"]?.string == "hls-proxy" && $0["channelID"]?.number == 5 }, "\(listed)")
    }

    static func playLink(_ fixture: Fixture, curl: String, item: Int) async throws -> String {
        let link = try await Curl.fetch(curl, fixture.server.baseURL + "/api/v1/channels/\(item)/play")
        return try #require(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(link.body))["proxyURL"]?.string)
    }

    @Test("alternatives are found by tvg-id and name, and the user's own list replaces them")
    func editableAlternatives() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let url = fixture.server.baseURL + "/api/v1/channels/1/alternatives"
        func ids(_ response: CurlResponse) throws -> (Bool?, [Int]) {
            let body = try JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
            let list = body["alternatives"]?.array?.compactMap { $0.object?["id"]?.number.map(Int.init) } ?? []
            return (body["chosen"]?.bool, list)
        }
        func put(_ body: String) async throws -> CurlResponse {
            try await Curl.fetch(
                tools[.curl], url, options: ["-X", "PUT", "-H", "Content-Type: application/json", "--data", body])
        }
        let automatic = try ids(try await Curl.fetch(tools[.curl], url))
        #expect(automatic.0 == false && automatic.1 == [3], "'UK: One' in source B, by tvg-id")
        let chosen = try await put(#"{"ids":[2]}"#)
        let chosenIDs = try ids(chosen)
        #expect(chosen.status == 200 && chosenIDs.0 == true && chosenIDs.1 == [2])
        #expect(try await put(#"{"ids":[1]}"#).status == 400, "not itself")
        #expect(try await put(#"{"ids":[999]}"#).status == 404)
        #expect(try await put(#"{"ids":"x"}"#).status == 400)
        let back = try ids(try await put(#"{"ids":[]}"#))
        #expect(back.0 == false && back.1 == [3])
    }

    @Test("with --live-preempt on, a full account stops the lowest-priority session for the owner")
    func preemption() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl], arguments: ["--live-preempt", "on"])
        defer { Task { await fixture.remove() } }
        let data = fixture.server.dataDirectory
        let added = try await Subprocess.run(
            "/bin/sh",
            [
                "-c",
                "echo 'a-long-password' | \"\(TunerProcess.binary)\" users add guest --password-stdin "
                    + "--max-connections 2 --data \"\(data)\"",
            ])
        #expect(added.succeeded, "\(added.transcript)")
        try await Self.patchSource(fixture, curl: tools[.curl], id: 1, limit: 1)
        try await Self.patchSource(fixture, curl: tools[.curl], id: 2, limit: 1)
        // The owner holds source B (the backup channel); a guest login holds source A (channel two).
        let backup = try await Self.playLink(fixture, curl: tools[.curl], item: 3)
        async let owner = Curl.fetch(tools[.curl], backup, timeout: .seconds(10))
        try await Task.sleep(for: .seconds(1))
        let started = ContinuousClock.now
        async let guest = Curl.fetch(
            tools[.curl], fixture.server.baseURL + "/live/guest/a-long-password/2.ts", timeout: .seconds(15))
        try await Task.sleep(for: .seconds(1.5))
        // Channel one: both its accounts are full; the guest's session ranks lowest and is stopped.
        let one = try await Self.playLink(fixture, curl: tools[.curl], item: 1)
        let preempting = try await Curl.fetch(tools[.curl], one, timeout: .seconds(3))
        let guestAnswer = try await guest
        let guestTime = ContinuousClock.now - started
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        _ = try await owner

        #expect(preempting.status == 200 && Self.check(preempting.body).packets > 50)
        #expect(guestAnswer.status == 200 && guestTime < .seconds(10), "the guest's stream was ended early")
        #expect(Set(listed.compactMap { $0["channelID"]?.number }) == [1, 3], "\(listed)")
        #expect(fixture.server.log.contains("live session preempted"))
    }

    @Test("a live stream's redirects are followed hop by hop, and one that leaves what may be fetched is refused")
    func redirectsUnderTheFetchPolicy() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl], arguments: ["--allow-fetch", "loopback"])
        defer { Task { await fixture.remove() } }
        let escaped = { (url: String) in url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url }
        let list = """
            #EXTM3U
            #EXTINF:-1,Moved
            \(fixture.files.baseURL)/redirect-to?url=\(escaped(fixture.provider.url("two")))
            #EXTINF:-1,Away
            \(fixture.files.baseURL)/redirect-to?url=\(escaped("http://192.0.2.1/live/1.ts"))
            """
        let site = fixture.workspace.file("redirect-site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Data(list.utf8).write(to: URL(fileURLWithPath: site + "/r.m3u"))
        fixture.files.serveDirectory(site)
        let base = fixture.server.baseURL
        let added = try await Curl.fetch(
            tools[.curl], base + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"location":"\#(fixture.files.baseURL)/static/r.m3u"}"#,
            ])
        let id = Int(
            try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number))
        #expect(
            try await Curl.fetch(tools[.curl], base + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"]).status
                == 200)

        let moved = try await Curl.fetch(
            tools[.curl], try await Self.playLink(fixture, curl: tools[.curl], item: 5), timeout: .seconds(3))
        #expect(moved.status == 200 && Self.check(moved.body).packets > 50)
        #expect(fixture.provider.connectionCount("two") == 1)
        // This server may fetch only from loopback: a hop elsewhere ends the stream with the reason.
        let away = try await Curl.fetch(
            tools[.curl], try await Self.playLink(fixture, curl: tools[.curl], item: 6), timeout: .seconds(20))
        #expect(away.status == 502)
        #expect(String(decoding: away.body, as: UTF8.self).contains("may not fetch"), "\(away)")
    }

    @Test("SIGTERM with viewers connected: their streams end and the server exits at once")
    func shutdownWithViewers() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        async let viewer = Curl.fetch(tools[.curl], fixture.server.baseURL + "/play/default/1", timeout: .seconds(30))
        let hls = try await Self.playLink(fixture, curl: tools[.curl], item: 2)
        async let other = Curl.fetch(tools[.curl], hls, timeout: .seconds(30))
        try await Task.sleep(for: .seconds(2))
        let started = ContinuousClock.now
        let ended = await fixture.server.stop(signal: SIGTERM, timeout: .seconds(20))
        let (a, b) = try await (viewer, other)
        #expect(ContinuousClock.now - started < .seconds(8), "\(ended)")
        #expect(a.status == 200 && b.status == 200 && Self.check(a.body).packets > 50)
        #expect(fixture.provider.openConnections("one") == 0 && fixture.provider.openConnections("two") == 0)
    }

    @Test("/metrics counts sessions, viewers, bytes and requests by route, and promtool accepts it")
    func metrics() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .promtool) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        async let viewer = Curl.fetch(tools[.curl], fixture.server.baseURL + "/play/default/1", timeout: .seconds(8))
        // Stream URLs are counted under their routes, a media playlist's segments under their own.
        let forged = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/stream/AAAA/BBBB/a.ts")
        let forgedSegment = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/stream/AAAA/BBBB/s1/a.ts")
        #expect(forged.status == 403 && forgedSegment.status == 403)
        // Scraped once the viewer plays (on a loaded machine that can take more than a second).
        var scraped = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/metrics")
        for _ in 0..<40
        where !String(decoding: scraped.body, as: UTF8.self).contains(#"tuner_live_viewers{profile="direct"} 1"#) {
            try await Task.sleep(for: .milliseconds(250))
            scraped = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/metrics")
        }
        _ = try await viewer
        let text = String(decoding: scraped.body, as: UTF8.self)
        #expect(scraped.status == 200)
        #expect(scraped.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(text.contains(#"tuner_live_sessions{profile="direct"} 1"#), "\(text)")
        #expect(text.contains(#"tuner_live_viewers{profile="direct"} 1"#))
        #expect(text.contains("tuner_live_sessions_opened_total 1"))
        let upstream = text.split(separator: "\n").first { $0.hasPrefix("tuner_live_upstream_bytes_total ") }
        #expect(
            (upstream?.split(separator: " ").last.flatMap { Double($0) } ?? 0) > 10_000,
            "\(String(describing: upstream))")
        // Requests by route and status, from Hummingbird's middleware through swift-metrics.
        #expect(
            text.contains(
                #"tuner_http_requests_total{http_route="/api/v1/sources/{id}/refresh",http_request_method="POST",http_response_status_code="200"} 2"#
            ), "\(text)")
        #expect(text.contains(#"tuner_import_duration_seconds_count{kind="m3u",outcome="ok"} 2"#))
        for route in ["/stream/{signature}/{payload}/{name}", "/stream/{signature}/{payload}/{name}/{file}"] {
            #expect(
                text.contains(
                    #"tuner_http_requests_total{http_route=""# + route
                        + #"",http_request_method="GET",http_response_status_code="403"} 1"#), "\(route)")
        }
        let path = fixture.workspace.file("metrics.txt")
        try Data(scraped.body).write(to: URL(fileURLWithPath: path))
        let checked = try await Subprocess.run(
            "/bin/sh", ["-c", "\"\(tools[.promtool])\" check metrics < \"\(path)\""])
        #expect(checked.succeeded, "\(checked.transcript)")
    }

    @Test("a TS channel plays in headless Chromium as HLS with fMP4 segments, on the channel's one upstream")
    func browserPlaysHLS() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .chromium, .chromedriver) else { return }
        let fixture = try await Self.start(curl: tools[.curl])
        defer { Task { await fixture.remove() } }
        let link = try await Curl.fetch(tools[.curl], fixture.server.baseURL + "/api/v1/channels/1/play")
        let body = try JSONDecoder().decode([String: JSONValue].self, from: Data(link.body))
        let hlsURL = try #require(body["hlsURL"]?.string)
        #expect(hlsURL.hasSuffix("/live.m3u8"))
        // A TS viewer at the same time: the browser's HLS rides the same upstream.
        async let tsViewer = Curl.fetch(tools[.curl], try #require(body["proxyURL"]?.string), timeout: .seconds(12))

        let site = fixture.workspace.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try """
        <!doctype html>
        <html><body><video id="video" muted autoplay playsinline src="\(hlsURL)"></video></body></html>
        """.write(toFile: site + "/player.html", atomically: true, encoding: .utf8)
        fixture.files.serveDirectory(site)
        let result = try await HeadlessChromium.run(
            steps: "driver.get(args[0])\n" + HeadlessChromium.playVideoSteps(),
            arguments: [fixture.files.baseURL + "/static/player.html"], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], timeout: .seconds(120))
        let report = result.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        #expect(report.hasPrefix("played"), "\(result.transcript)\n\(fixture.server.log.suffix(2000))")
        let listed = try await Self.streams(fixture, curl: tools[.curl])
        _ = try await tsViewer
        #expect(fixture.provider.connectionCount("one") == 1)
        #expect(listed.contains { $0["profile"]?.string == "hls" })
        // Names outside the session's files are not served.
        let other = try await Curl.fetch(
            tools[.curl], hlsURL.replacingOccurrences(of: "live.m3u8", with: "seg-999999.m4s"))
        #expect(other.status == 404)
    }
}

extension LiveChannelsEndToEndTests {
    @Test("a file played as a channel that stalls goes on with a Range request: every byte once, in order")
    func aStalledFileResumesWhereItStopped() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        // A song (not MPEG-TS) whose first answer stops sending after 200,000 of its 600,000
        // bytes and keeps the connection open: a stall. The second request has no fault.
        let size = 600_000
        let song = "\(origin.baseURL)/files/song.mp3?size=\(size)&type=audio/mpeg&hold=200000&failfirst=1"
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try Data("#EXTM3U\n#EXTINF:-1,Song\n\(song)\n".utf8).write(to: URL(fileURLWithPath: served + "/a.m3u"))
        origin.serveDirectory(served)
        let data = workspace.file("data")
        let added = try await TunerProcess.run(["sources", "add", origin.baseURL + "/static/a.m3u", "--data", data])
        #expect(added.succeeded, "\(added.transcript)")
        let server = try await TunerProcess.serve(data: data, arguments: ["--live-stall-timeout", "2"])
        defer { Task { _ = await server.stop() } }

        let answer = try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/1", timeout: .seconds(60))

        #expect(answer.status == 200)
        // The viewer got the file once, whole and in order: not its first 200,000 bytes twice.
        #expect(answer.body.count == size)
        #expect(answer.body == TestOrigin.content(name: "song.mp3", range: 0..<size), "the bytes differ")
        #expect(origin.requests(path: "/files/song.mp3") == 2)
        let resumed = origin.lastRequestHeaders(path: "/files/song.mp3") ?? []
        #expect(resumed.contains { $0.name.lowercased() == "range" && $0.value == "bytes=200000-" }, "\(resumed)")
        #expect(
            resumed.contains {
                $0.name.lowercased() == "if-range" && $0.value == TestOrigin.etag(name: "song.mp3", size: size)
            }, "\(resumed)")
        #expect(server.log.contains("stalled"), "the stall was noticed: \(server.log.suffix(2000))")
    }
}
