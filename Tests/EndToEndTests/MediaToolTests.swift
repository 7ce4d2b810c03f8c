import Foundation
import Testing
import TunerTesting

/// ffprobe and ffmpeg read MP4s through the proxy exactly as they read them from the origin.
@Suite struct MediaToolTests {
    /// The two layouts players meet: `moov` first (one sequential read), and `moov` at the end,
    /// which makes a player read the tail first and then seek back: range requests, out of order.
    static let layouts = ["faststart.mp4", "moov-at-end.mp4"]

    @Test func ffprobeAndFfmpegSeeTheSameMediaThroughTheProxy() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let media = workspace.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        try await Self.makeTestMovies(in: media, ffmpeg: tools[.ffmpeg])

        let origin = try await TestOrigin.start()
        origin.serveDirectory(media)
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)

        for name in Self.layouts {
            let direct = origin.baseURL + "/static/\(name)"
            let proxied = try await TunerProcess.proxyURL(for: direct, data: data)
            #expect(proxied.hasSuffix("/\(name)"))

            // ffprobe: the container and streams, as JSON, minus the only field that names the URL.
            origin.resetCounters()
            let probeDirect = try await Self.probe(direct, ffprobe: tools[.ffprobe])
            if name == "moov-at-end.mp4" {
                // (Through Tuner the origin may see a single request: the first fetch runs ahead
                // of the player and serves the seek.)
                #expect(
                    origin.requests(path: "/static/\(name)") >= 2,
                    "ffprobe seeks to the moov at the end, so it reads more than one range")
            }
            origin.resetCounters()
            let probeProxied = try await Self.probe(proxied, ffprobe: tools[.ffprobe])
            #expect(origin.requests(path: "/static/\(name)") > 0, "the proxied probe went through Tuner to the origin")
            #expect(probeDirect == probeProxied, "ffprobe of \(name): direct \(probeDirect) vs proxied \(probeProxied)")
            #expect(
                probeDirect.contains("\"codec_name\":\"h264\"") && probeDirect.contains("\"codec_name\":\"aac\""),
                "\(probeDirect)")

            // Every packet of every stream, remuxed: byte-identical both ways.
            let remux = ["-v", "error", "-i", "URL", "-map", "0", "-c", "copy", "-f", "md5", "-"]
            let remuxDirect = try await Self.ffmpeg(remux, url: direct, ffmpeg: tools[.ffmpeg])
            let remuxProxied = try await Self.ffmpeg(remux, url: proxied, ffmpeg: tools[.ffmpeg])
            #expect(remuxDirect.hasPrefix("MD5="), "\(remuxDirect)")
            #expect(remuxDirect == remuxProxied, "ffmpeg -c copy of \(name)")

            // A seek: ffmpeg jumps to 2 s and decodes one frame.
            let seek = ["-v", "error", "-ss", "2", "-i", "URL", "-frames:v", "1", "-f", "md5", "-"]
            let seekDirect = try await Self.ffmpeg(seek, url: direct, ffmpeg: tools[.ffmpeg])
            let seekProxied = try await Self.ffmpeg(seek, url: proxied, ffmpeg: tools[.ffmpeg])
            #expect(seekDirect.hasPrefix("MD5="), "\(seekDirect)")
            #expect(seekDirect == seekProxied, "ffmpeg -ss 2 of \(name)")

            // curl gets the file byte for byte, and with that the whole file is cached: playing
            // and seeking again costs the origin nothing.
            let file = try await Curl.fetch(tools[.curl], proxied)
            #expect(file.status == 200)
            expectSameBytes(
                file.body, [UInt8](FileManager.default.contents(atPath: media + "/" + name) ?? Data()),
                "curl of \(name)")
            origin.resetCounters()
            #expect(try await Self.ffmpeg(remux, url: proxied, ffmpeg: tools[.ffmpeg]) == remuxDirect)
            #expect(try await Self.ffmpeg(seek, url: proxied, ffmpeg: tools[.ffmpeg]) == seekDirect)
            #expect(origin.bodyBytesSent == 0, "replaying the cached \(name) comes from disk")
        }

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }

    /// Four seconds of test pattern and tone, H.264 and AAC, in both MP4 layouts.
    static func makeTestMovies(in directory: String, ffmpeg: String) async throws {
        let common = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=4:size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=duration=4", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
            // One thread and no timestamps in the file, so both layouts hold the same packets.
            "-threads", "1", "-fflags", "+bitexact",
        ]
        let faststart = try await Subprocess.run(
            ffmpeg, common + ["-movflags", "+faststart", directory + "/faststart.mp4"])
        #expect(faststart.succeeded, "\(faststart.transcript)")
        let moovAtEnd = try await Subprocess.run(ffmpeg, common + [directory + "/moov-at-end.mp4"])
        #expect(moovAtEnd.succeeded, "\(moovAtEnd.transcript)")
        guard faststart.succeeded, moovAtEnd.succeeded else {
            throw EndToEndError("ffmpeg could not make the test movies")
        }
        // Make sure the layouts are what their names say: `moov` before `mdat` only in faststart.
        for (name, moovFirst) in [("faststart.mp4", true), ("moov-at-end.mp4", false)] {
            let bytes = [UInt8](FileManager.default.contents(atPath: directory + "/" + name) ?? Data())
            let moov = bytes.firstRange(of: Array("moov".utf8))?.lowerBound ?? -1
            let mdat = bytes.firstRange(of: Array("mdat".utf8))?.lowerBound ?? -1
            #expect(moov >= 0 && mdat >= 0 && (moov < mdat) == moovFirst, "\(name): moov at \(moov), mdat at \(mdat)")
        }
    }

    /// `ffprobe -show_format -show_streams` as canonical JSON, without `format.filename`.
    static func probe(_ url: String, ffprobe: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        let result = try await Subprocess.run(
            ffprobe, ["-v", "error", "-show_format", "-show_streams", "-of", "json", url])
        #expect(result.succeeded, "ffprobe \(url): \(result.transcript)", sourceLocation: sourceLocation)
        guard var json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw EndToEndError("ffprobe printed no JSON object: \(result.transcript)")
        }
        if var format = json["format"] as? [String: Any] {
            format["filename"] = nil
            json["format"] = format
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Runs ffmpeg with `URL` in `arguments` replaced by `url`; returns its trimmed stdout.
    static func ffmpeg(
        _ arguments: [String], url: String, ffmpeg: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await Subprocess.run(ffmpeg, arguments.map { $0 == "URL" ? url : $0 })
        #expect(result.succeeded, "ffmpeg \(arguments) on \(url): \(result.transcript)", sourceLocation: sourceLocation)
        #expect(
            result.errorOutput.isEmpty, "ffmpeg reported errors reading \(url): \(result.errorOutput)",
            sourceLocation: sourceLocation)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
