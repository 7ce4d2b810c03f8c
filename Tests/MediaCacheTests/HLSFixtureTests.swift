import Foundation
import MediaFormats
import Testing
import TunerTesting

/// The HLS fixtures and the origin's simulated live stream, checked with the real clients the
/// proxy tests rely on (ffprobe, ffmpeg, curl) directly against the origin, with no proxy in
/// between: if these fail, a failing HLS proxy test says nothing about the proxy.
@Suite struct HLSFixtureTests {
    @Test func fixturesAreGeneratedOnceAndComplete() async throws {
        guard requireTools("ffmpeg") else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-hls-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let fixtures = try await HLSFixtures.prepare(in: directory)
        for stream in fixtures.vods {
            for file in stream.files {
                #expect(FileManager.default.fileExists(atPath: fixtures.path(file)), "\(stream): \(file)")
            }
        }
        let master = try text(fixtures.path("vod/master.m3u8"))
        #expect(master.components(separatedBy: "#EXT-X-STREAM-INF:").count - 1 == 2)
        #expect(master.contains("RESOLUTION=320x180") && master.contains("RESOLUTION=640x360"))
        #expect(master.contains("\nlow/index.m3u8") && master.contains("\nhigh/index.m3u8"))

        let encrypted = try text(fixtures.path(fixtures.encrypted.playlist))
        #expect(encrypted.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\",IV=\(HLSFixtures.iv)"))
        #expect(FileManager.default.contents(atPath: fixtures.path("aes/key.bin")) == Data(HLSFixtures.key))

        let fragmented = try text(fixtures.path(fixtures.fragmentedMP4.playlist))
        #expect(fragmented.contains("#EXT-X-MAP:URI=\"init.mp4\""))
        #expect(fragmented.contains("seg0.m4s"))

        let ranges = try text(fixtures.path(fixtures.byteRange.playlist))
        #expect(
            ranges.components(separatedBy: "#EXT-X-BYTERANGE:").count - 1 == HLSFixtures.duration
                / HLSFixtures.segmentDuration)

        let separate = try text(fixtures.path(fixtures.separateAudio.playlist))
        #expect(
            separate.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"group_aud\"")
                && separate.contains("URI=\"audio/index.m3u8\""))
        #expect(separate.contains("AUDIO=\"group_aud\"") && separate.contains("\nvideo/index.m3u8"))

        for stream in fixtures.vods {
            let media =
                switch stream.kind {
                case .multiVariant: ["vod/low/index.m3u8"]
                case .separateAudio: ["altaudio/video/index.m3u8", "altaudio/audio/index.m3u8"]
                default: [stream.playlist]
                }
            for path in media {
                let playlist = try text(fixtures.path(path))
                #expect(
                    playlist.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.contains("#EXT-X-ENDLIST"),
                    "\(stream): \(path)")
            }
        }
        let live = try text(fixtures.liveSourcePath)
        #expect(live.components(separatedBy: "#EXTINF:").count - 1 == HLSFixtures.liveSegmentCount)

        // A second call finds the set complete and leaves it alone.
        let segment = fixtures.path("vod/low/seg0.ts")
        let before = try FileManager.default.attributesOfItem(atPath: segment)[.modificationDate] as? Date
        let again = try await HLSFixtures.prepare(in: directory)
        #expect(again.directory == fixtures.directory)
        let after = try FileManager.default.attributesOfItem(atPath: segment)[.modificationDate] as? Date
        #expect(before != nil && before == after)
        let siblings = try FileManager.default.contentsOfDirectory(
            atPath: (directory as NSString).deletingLastPathComponent)
        #expect(!siblings.contains { $0.hasPrefix((directory as NSString).lastPathComponent + ".staging-") })
    }

    @Test func ffprobeReadsTheMasterPlaylistOverHTTP() async throws {
        guard requireTools("ffmpeg", "ffprobe") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withOrigin { origin in
            origin.serveDirectory(fixtures.directory)
            let result = try await ExternalCommand.run(
                "ffprobe",
                [
                    "-v", "error", "-show_entries", "stream=codec_type,width,height", "-of", "csv=p=0",
                    origin.baseURL + fixtures.multiVariant.staticPath,
                ])
            #expect(result.succeeded, "\(result.transcript)")
            #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
            let lines = Set(result.output.split(whereSeparator: \.isNewline).map(String.init))
            #expect(lines.contains("video,320,180"), "\(result.output)")
            #expect(lines.contains("video,640,360"), "\(result.output)")
            #expect(lines.contains("audio"), "\(result.output)")
            #expect(origin.requests(path: "/static/vod/high/index.m3u8") >= 1)
        }
    }

    @Test(arguments: HLSFixtures.Kind.allCases)
    func ffmpegDecodesEveryVODOverHTTP(kind: HLSFixtures.Kind) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withOrigin { origin in
            origin.serveDirectory(fixtures.directory)
            // Decoding (not just copying) proves keys, init sections and byte ranges are right.
            let result = try await ExternalCommand.run(
                "ffmpeg",
                ["-nostdin", "-v", "error", "-i", origin.baseURL + fixtures.stream(kind).staticPath, "-f", "null", "-"])
            #expect(result.succeeded, "\(result.transcript)")
            #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
            #expect(origin.bodyBytesSentByPath.keys.contains { $0.hasSuffix(".ts") || $0.hasSuffix(".m4s") })
        }
    }

    @Test func livePlaylistIsASlidingWindowThatAdvancesWithTheClock() async throws {
        guard requireTools("ffmpeg", "curl") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withOrigin { origin in
            try origin.serveLive(fixtures, name: "news", window: 4)
            let url = origin.baseURL + origin.livePlaylistPath(name: "news")

            let first = try await curl(url)
            #expect(first.status == 200)
            #expect(first.contentType == "application/vnd.apple.mpegurl")
            let playlist = LivePlaylist(first.text)
            #expect(!first.text.contains("#EXT-X-ENDLIST"))
            #expect(!first.text.contains("#EXT-X-PLAYLIST-TYPE"))
            #expect(first.text.contains("#EXT-X-TARGETDURATION:\(HLSFixtures.segmentDuration)"))
            #expect(playlist.segments.count == 4)
            #expect(playlist.segments == (0..<4).map { "seg\(playlist.mediaSequence + $0).ts" })

            // Wait (without a deadline assertion) until the clock has moved the window on.
            var latest = playlist
            var fetches = 1
            for _ in 0..<40 where latest.mediaSequence == playlist.mediaSequence {
                try await Task.sleep(for: .milliseconds(250))
                latest = LivePlaylist(try await curl(url).text)
                fetches += 1
            }
            #expect(latest.mediaSequence > playlist.mediaSequence)
            #expect(latest.segments == (0..<4).map { "seg\(latest.mediaSequence + $0).ts" })
            #expect(origin.livePlaylistRequests(name: "news") == fetches)
            #expect(try #require(origin.liveMediaSequence(name: "news")) >= latest.mediaSequence)

            // Segments of the window are real TS files; counted as body bytes per path.
            let newest = try #require(latest.segments.last)
            let segment = try await curl(origin.baseURL + "/live/news/" + newest)
            #expect(segment.status == 200)
            #expect(segment.contentType == "video/mp2t")
            #expect(segment.body.first == 0x47 && segment.body.count % 188 == 0)
            #expect(origin.bodyBytesSent(path: "/live/news/" + newest) == segment.body.count)
            #expect(origin.requests(path: "/live/news/" + newest) == 1)

            // Ranges work on segments like on static files.
            let ranged = try await curl(origin.baseURL + "/live/news/" + newest, headers: ["Range: bytes=188-375"])
            #expect(ranged.status == 206)
            #expect(ranged.body == Array(segment.body[188..<376]))

            // The future is not there yet; unknown streams are not there at all.
            #expect(try await curl(origin.baseURL + "/live/news/seg\(latest.mediaSequence + 100).ts").status == 404)
            #expect(try await curl(origin.baseURL + "/live/other/index.m3u8").status == 404)
        }
    }

    @Test func liveStreamLoopsWithADiscontinuity() async throws {
        guard requireTools("ffmpeg", "curl") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withOrigin { origin in
            try origin.serveLive(fixtures, window: 4)
            let count = HLSFixtures.liveSegmentCount
            // Jump to just before the loop point instead of waiting a minute.
            origin.advanceLive(segments: count - 2 - origin.liveMediaSequence()!)
            let response = try await curl(origin.baseURL + origin.livePlaylistPath())
            let playlist = LivePlaylist(response.text)
            let lines = response.text.split(whereSeparator: \.isNewline).map(String.init)
            #expect(playlist.mediaSequence >= count - 2)
            if playlist.mediaSequence <= count - 1 {
                #expect(response.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:0"))
                let wrap = try #require(lines.firstIndex(of: "seg\(count).ts"))
                #expect(lines[wrap - 2] == "#EXT-X-DISCONTINUITY")
            }
            // Absolute segment `count` is the first source segment again.
            let looped = try await curl(origin.baseURL + origin.liveSegmentPath(number: count))
            #expect(looped.status == 200)
            #expect(
                looped.body == [UInt8](FileManager.default.contents(atPath: fixtures.path("live/seg0.ts")) ?? Data()))

            origin.advanceLive(segments: count)
            let later = try await curl(origin.baseURL + origin.livePlaylistPath())
            #expect(
                later.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1")
                    || later.text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:2"))
        }
    }

    @Test func ffmpegFollowsTheLiveStreamDirectly() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withOrigin { origin in
            try origin.serveLive(fixtures)
            let result = try await ExternalCommand.run(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", origin.baseURL + origin.livePlaylistPath(), "-t", "6", "-c",
                    "copy", "-f", "null", "-",
                ],
                timeout: .seconds(90))
            #expect(result.succeeded, "\(result.transcript)")
            #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
            // Following a live stream means reloading its playlist.
            #expect(origin.livePlaylistRequests() >= 2)
            #expect(origin.bodyBytesSentByPath.keys.filter { $0.hasPrefix("/live/live/seg") }.count >= 3)
        }
    }
}

// MARK: - Helpers

/// The media sequence and segment URIs of a media playlist.
private struct LivePlaylist {
    var mediaSequence = -1
    var segments: [String] = []

    init(_ text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                mediaSequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? -1
            } else if !line.hasPrefix("#"), !line.isEmpty {
                segments.append(String(line))
            }
        }
    }
}

private struct CurlResponse {
    var status: Int
    var contentType: String?
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

private func curl(_ url: String, headers: [String] = []) async throws -> CurlResponse {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bodyPath = scratch.appendingPathComponent("body").path
    let result = try await ExternalCommand.run(
        "curl",
        ["-s", "--http1.1", "-o", bodyPath, "-w", "%{http_code}\n%{content_type}"] + headers.flatMap { ["-H", $0] } + [
            url
        ])
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    return CurlResponse(
        status: Int(lines.first ?? "") ?? 0,
        contentType: lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil,
        body: [UInt8](FileManager.default.contents(atPath: bodyPath) ?? Data()))
}

private func text(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}

private func withOrigin(_ body: (TestOrigin) async throws -> Void) async throws {
    let origin = try await TestOrigin.start()
    do {
        try await body(origin)
    } catch {
        try await origin.shutdown()
        throw error
    }
    try await origin.shutdown()
}

/// ffmpeg's MPEG-TS, read by MediaFormats' packet reader: aligned, a PAT among the first packets
/// (ffmpeg writes its SDT first), a random
/// access point, continuous counters on every PID, and a clock that moves on.
@Test func theFixturesTSSegmentsReadAsContinuousMPEGTS() async throws {
    guard requireTools("ffmpeg") else { return }
    let fixtures = try await HLSFixtures.shared()
    let bytes = [UInt8](FileManager.default.contents(atPath: fixtures.path("vod/low/seg0.ts")) ?? Data())
    #expect(bytes.count > 10 * TSPacket.size && bytes.count % TSPacket.size == 0)
    #expect(TSPacket.alignment(in: bytes) == 0)
    var last: [UInt16: TSPacket] = [:]
    var gaps = 0
    var randomAccess = 0
    var clocks: [UInt64] = []
    var firstPAT: Int?
    for offset in stride(from: 0, to: bytes.count, by: TSPacket.size) {
        let packet = try #require(TSPacket(bytes[offset..<(offset + TSPacket.size)]), "packet at \(offset)")
        if packet.pid == TSPacket.patPID && packet.payloadUnitStart && firstPAT == nil { firstPAT = offset }
        if let previous = last[packet.pid], !previous.isFollowed(by: packet) { gaps += 1 }
        last[packet.pid] = packet
        if packet.randomAccess { randomAccess += 1 }
        if let pcr = packet.pcr { clocks.append(pcr) }
    }
    #expect(firstPAT.map { $0 < 4 * TSPacket.size } == true)
    #expect(gaps == 0)
    #expect(randomAccess >= 1)
    #expect(clocks.count >= 2 && clocks == clocks.sorted() && clocks.last! > clocks.first!)
}

/// True when every tool is installed. Otherwise the test should return: a missing tool fails it
/// when `CI=true` (CI must have every tool, so a silent skip would hide lost coverage), and
/// elsewhere it prints "skipped: …" naming what to install.
private func requireTools(_ names: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let missing = names.filter { ExternalCommand.path(of: $0) == nil }
    guard !missing.isEmpty else { return true }
    let message = missing.map { "\($0) is missing (\(ExternalCommandError.notInstalled($0)))" }.joined(separator: "; ")
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    } else {
        print("skipped: \(message)")
    }
    return false
}
