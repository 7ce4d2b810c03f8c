import Foundation
import Testing
import TunerTesting

/// `tuner open` through the real binary: deep links play, show and refuse as docs/guide/playing.md says.
@Suite struct OpenLinkTests {
    @Test func aChannelLinkPrintsAWorkingProxyURLWithoutTheProvidersSecrets() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let playlist = workspace.file("list.m3u")
        // The stream URL carries a provider password, as Xtream-style playlists do.
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="news.example" catchup="default" catchup-days="3" catchup-source="\(origin.baseURL)/files/past-{utc}.ts?size=3000&password=hunter2",Evening News
            \(origin.baseURL)/files/news.ts?size=5000&password=hunter2
            """.utf8
        ).write(to: URL(fileURLWithPath: playlist))
        let added = try await TunerProcess.run(["sources", "add", playlist, "--data", data])
        #expect(added.succeeded, "\(added.transcript)")

        let server = try await TunerProcess.serve(data: data)
        let opened = try await TunerProcess.run(["open", "tuner://channel/1/play", "--data", data])
        #expect(opened.succeeded, "\(opened.transcript)")
        let link = opened.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix(server.baseURL + "/stream/"), "points at the running server: \(link)")
        #expect(!opened.transcript.contains("hunter2"), "\(opened.transcript)")
        let played = try await Curl.fetch("curl", link)
        #expect(
            played.status == 200 && played.body.count == 5000, "status \(played.status), \(played.body.count) bytes")

        // Catch-up an hour ago: the programme's time goes into the provider's template.
        let past = Int64(Date().timeIntervalSince1970) - 3600
        let caught = try await TunerProcess.run(["open", "tuner://channel/1/play?at=\(past)", "--data", data])
        #expect(caught.succeeded, "\(caught.transcript)")
        let pastLink = caught.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(pastLink.hasPrefix(server.baseURL + "/stream/") && pastLink != link, "\(caught.transcript)")
        let pastPlayed = try await Curl.fetch("curl", pastLink)
        #expect(
            pastPlayed.status == 200 && pastPlayed.body.count == 3000,
            "status \(pastPlayed.status), \(pastPlayed.body.count) bytes")
        let tooOld = try await TunerProcess.run([
            "open", "tuner://channel/1/play?at=\(past - 10 * 86_400)", "--data", data,
        ])
        #expect(!tooOld.succeeded && tooOld.errorOutput.contains("3 days"), "\(tooOld.transcript)")

        let shown = try await TunerProcess.run(["open", "tuner://channel/1", "--data", data])
        #expect(shown.succeeded && shown.output.contains("Evening News"), "\(shown.transcript)")
        #expect(!shown.transcript.contains("hunter2"), "\(shown.transcript)")

        let missing = try await TunerProcess.run(["open", "tuner://channel/999/play", "--data", data])
        #expect(!missing.succeeded && missing.errorOutput.contains("no channel with id 999"), "\(missing.transcript)")
        let unknown = try await TunerProcess.run(["open", "tuner://no/such/thing", "--data", data])
        #expect(!unknown.succeeded && unknown.errorOutput.contains("does not know"), "\(unknown.transcript)")
        // A download link queues on the running server, which fetches the file.
        let source = "\(origin.baseURL)/files/film.bin?size=1000"
        let encoded = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let queued = try await TunerProcess.run(["open", "tuner://downloads/new?url=\(encoded)", "--data", data])
        #expect(queued.succeeded, "\(queued.transcript)")
        let deadline = ContinuousClock.now + .seconds(30)
        var size = -1
        while ContinuousClock.now < deadline, size != 1000 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: data + "/downloads")) ?? []
            size =
                names.filter { $0.hasPrefix("film") && !$0.hasSuffix(".part") && !$0.hasSuffix(".partial") }
                .compactMap {
                    (try? FileManager.default.attributesOfItem(atPath: data + "/downloads/" + $0))?[.size] as? Int
                }.first ?? -1
            if size != 1000 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(size == 1000, "the download finished in <data>/downloads")
        await server.stop()
        try await origin.shutdown()
    }
}
