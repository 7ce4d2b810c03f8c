import Foundation
import Testing
import TunerTesting

@testable import Streaming
@testable import TunerApp
@testable import TunerServer

/// Playlists from a hostile origin: numbers that overflow, and Host values that vary per request.
@Suite struct HostilePlaylistTests {
    /// A directory served by the harness's origin under `/static/`.
    static func serve(_ files: [String: String], on harness: ProxyHarness) throws -> String {
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-hostile-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: site + "/" + name, atomically: true, encoding: .utf8) }
        harness.origin.serveDirectory(site)
        return site
    }

    @Test func byteRangesNearInt64MaxNeitherTrapNorFetch() async throws {
        let harness = try await ProxyHarness.start { $0.prefetchSegments = 3 }
        let site = try Self.serve(
            [
                "vod.m3u8": """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="init.mp4",BYTERANGE="9223372036854775807@9223372036854775807"
                #EXTINF:4,
                #EXT-X-BYTERANGE:9223372036854775807@9223372036854775807
                seg.ts
                #EXTINF:4,
                #EXT-X-BYTERANGE:9223372036854775000@1000
                seg.ts
                #EXTINF:4,
                #EXT-X-BYTERANGE:100@0
                seg.ts
                #EXT-X-ENDLIST

                """
            ], on: harness)
        defer { try? FileManager.default.removeItem(atPath: site) }
        let playlist = try await HTTP.fetch(try harness.proxyURL("/static/vod.m3u8"))
        #expect([200, 502].contains(playlist.status), "\(playlist.status)")
        // Pre-fetch ran (or was refused) without taking the server down.
        for _ in 0..<20 {
            #expect(try await HTTP.fetch(harness.api + "/health").status == 200)
            try await Task.sleep(for: .milliseconds(10))
        }
        try await harness.stop()
    }

    @Test func rewrittenPlaylistsPerHostAreBounded() async throws {
        let harness = try await ProxyHarness.start { $0.prefetchSegments = 0 }
        let site = try Self.serve(
            [
                "live.m3u8":
                    // The key is a link of its own, on the address the player used (segments are
                    // named relative to the playlist).
                    "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                    + "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n"
            ], on: harness)
        defer { try? FileManager.default.removeItem(atPath: site) }
        let path = try #require(URL(string: try harness.proxyURL("/static/live.m3u8"))).path
        let port = try #require(harness.server.port)
        // Every IP literal is a valid Host, and each gives the playlist another base URL.
        for last in 1...40 {
            let answer = try await RawHTTP.get(port: port, target: path, host: "10.0.0.\(last):\(port)")
            #expect(answer.status == 200)
            #expect(answer.body.contains("http://10.0.0.\(last):\(port)/stream/"))
        }
        let held = harness.server.engine.streams.rewrittenTexts
        #expect(held.count <= StreamService.rewrittenBasesPerPlaylist, "\(held)")
        try await harness.stop()
    }
}
