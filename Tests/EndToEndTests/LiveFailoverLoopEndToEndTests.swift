import Foundation
import MediaFormats
import Testing
import TunerTesting

/// Failover that holds, through the real `tuner serve`: a channel's provider dies and its
/// alternative on another provider loops a short file verbatim, as test and filler channels do,
/// so every PID's continuity counter and the clock jump back every two seconds. The alternative is
/// judged on its own bytes (the loop is a splice, not lost packets), and the viewer goes on from
/// a clean join.
@Suite(.serialized) struct LiveFailoverLoopEndToEndTests {
    @Test("a viewer keeps decoding after its provider dies, on an alternative that loops a short file")
    func failoverToALoopingAlternative() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let workspace = try Workspace()
        let first = try await LiveTSOrigin.start()
        let second = try await LiveTSOrigin.start()
        let files = try await TestOrigin.start()
        let tuner = try await TunerProcess.serve(
            data: workspace.file("data"),
            // A long stall timeout keeps a loaded machine's pauses from switching early; it also makes
            // the window for continuity errors long (45 s), so loops counted as errors would end the
            // session.
            arguments: ["--live-stall-timeout", "30"])
        defer {
            Task {
                _ = await tuner.stop()
                await first.shutdown()
                await second.shutdown()
                try? await files.shutdown()
                workspace.remove()
            }
        }
        // Two seconds of picture and 16 audio tracks: about 20 PIDs jump at every loop. The two
        // providers differ in picture size, so the capture tells whose bytes it holds.
        let seconds = 2
        for (name, size, origin) in [("one", "320x180", first), ("backup", "256x144", second)] {
            let path = workspace.file("\(name).ts")
            try await LiveTSOrigin.makeStream(at: path, seconds: seconds, size: size, audioTracks: 16)
            try origin.serve(name, file: path, seconds: Double(seconds), verbatim: true)
        }
        let fileSize = try #require(
            FileManager.default.attributesOfItem(atPath: workspace.file("backup.ts"))[.size] as? Int)
        let bytesPerSecond = fileSize / seconds
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let lists = [
            "a.m3u": "#EXTM3U\n#EXTINF:-1 tvg-id=\"one.uk\",One HD\n\(first.url("one"))\n",
            "b.m3u": "#EXTM3U\n#EXTINF:-1 tvg-id=\"one.uk\",UK: One\n\(second.url("backup"))\n",
        ]
        for (name, text) in lists { try Data(text.utf8).write(to: URL(fileURLWithPath: served + "/" + name)) }
        files.serveDirectory(served)
        for list in ["a.m3u", "b.m3u"] {
            let added = try await Curl.fetch(
                tools[.curl], tuner.baseURL + "/api/v1/sources",
                options: [
                    "-X", "POST", "-H", "Content-Type: application/json", "--data",
                    #"{"location":"\#(files.baseURL)/static/\#(list)"}"#,
                ])
            #expect(added.status == 201)
            let id = try #require(
                try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number)
            let refreshed = try await Curl.fetch(
                tools[.curl], tuner.baseURL + "/api/v1/sources/\(Int(id))/refresh", options: ["-X", "POST"])
            #expect(refreshed.status == 200)
        }

        let viewer = try CurlStream(tools[.curl], tuner.baseURL + "/play/default/1", directory: workspace.path)
        // Twelve seconds of the first provider (six loops: over 100 counter jumps), then it dies.
        try await viewer.wait(for: "12 s of the first provider", seconds: 120) { $0.count >= bytesPerSecond * 12 }
        let killedAt = viewer.body.count
        await first.shutdown()
        // 35 seconds of bytes after the kill (loops counted as errors would have ended the session by
        // then: 200 in the 45 s window), or the session's end.
        var listed = try await Self.streams(tuner, curl: tools[.curl])
        for _ in 0..<900 {
            if viewer.body.count >= killedAt + bytesPerSecond * 35 || listed.isEmpty { break }
            try await Task.sleep(for: .milliseconds(200))
            listed = try await Self.streams(tuner, curl: tools[.curl])
        }
        let captured = await viewer.stop()

        // One switch, to the alternative, and the session still running on it without errors.
        #expect(listed.count == 1, "the session ended: \(listed)")
        let stream = try #require(listed.first)
        let failovers = stream["failovers"]?.array?.compactMap(\.object) ?? []
        #expect(failovers.count == 1, "\(failovers)")
        #expect(failovers.first?["toChannelID"]?.number == 2)
        #expect(stream["upstreamChannelID"]?.number == 2)
        #expect(stream["continuityErrors"]?.number == 0, "the loop's jumps are splices")

        // The viewer's bytes after the kill: the switch is the first packet flagged as a discontinuity,
        // on the PAT, and the alternative's video starts with a flagged keyframe.
        let after = Array(captured.body[(killedAt - killedAt % TSPacket.size)...])
        let packets = stride(from: 0, to: after.count - TSPacket.size + 1, by: TSPacket.size).compactMap {
            TSPacket(after[$0..<$0 + TSPacket.size])
        }
        #expect(packets.count == after.count / TSPacket.size, "whole packets throughout")
        let splice = try #require(packets.firstIndex { $0.discontinuity }, "no discontinuity flagged")
        #expect(packets[splice].pid == TSPacket.patPID)
        let video = try #require(packets[splice...].first { $0.pid == 0x100 })
        #expect(video.discontinuity && video.randomAccess && video.payloadUnitStart)

        // Decodable pictures of the alternative covering at least 20 s (25 frames a second).
        let path = workspace.file("after-switch.ts")
        try Data(after[(splice * TSPacket.size)...]).write(to: URL(fileURLWithPath: path))
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                "stream=width,height,nb_read_frames", "-of", "csv=p=0", path,
            ])
        let line = probe.output.split(whereSeparator: \.isNewline).first { !$0.isEmpty } ?? ""
        let fields = line.split(separator: ",")
        #expect(fields.prefix(2) == ["256", "144"], "the alternative's picture: \(probe.transcript)")
        let frames = fields.count == 3 ? Int(fields[2]) ?? 0 : 0
        #expect(frames >= 20 * 25, "\(frames) frames after the switch: \(probe.transcript)")
    }

    static func streams(_ server: TunerProcess, curl: String) async throws -> [[String: JSONValue]] {
        let listed = try await Curl.fetch(curl, server.baseURL + "/api/v1/streams")
        let body = try JSONDecoder().decode([String: JSONValue].self, from: Data(listed.body))
        return body["streams"]?.array?.compactMap(\.object) ?? []
    }
}
