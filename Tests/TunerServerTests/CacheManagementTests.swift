import Foundation
import MediaCache
import Testing
import TunerApp
import TunerServer
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Preload, export, eviction, pinning and clearing, through the API.
@Suite struct CacheManagementTests {
    @Test func aPreloadTriesAgainWhenTheOriginFailsInAWayThatMayPass() async throws {
        let harness = try await ProxyHarness.start()
        // The origin answers 503 once, then the file: the shared retry policy fetches it again.
        let originURL = harness.origin.baseURL + "/files/flaky.mp4?size=200000&status=503&failfirst=1"
        let started = try await HTTP.fetch(
            harness.api + "/cache/preload", method: "POST", json: #"{"url":"\#(originURL)"}"#)
        #expect(started.status == 202)
        let id = try #require(try HTTP.json(started)["id"] as? String)
        var job: [String: Any] = [:]
        for _ in 0..<500 {
            job = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/preloads/\(id)"))
            if job["state"] as? String != "running" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(job["state"] as? String == "complete", "\(job)")
        #expect(job["bytesDone"] as? Int == 200_000)
        #expect(harness.origin.requests(path: "/files/flaky.mp4") >= 2)
        try await harness.stop()
    }

    @Test func preloadFillsTheCacheAheadOfPlayback() async throws {
        let harness = try await ProxyHarness.start()
        let size = 3_000_000
        let originURL = harness.origin.baseURL + "/files/pre.mp4?size=\(size)"
        let started = try await HTTP.fetch(
            harness.api + "/cache/preload", method: "POST", json: #"{"url":"\#(originURL)","bytes":1000000}"#)
        #expect(started.status == 202)
        let id = try #require(try HTTP.json(started)["id"] as? String)
        var state = "running"
        var job: [String: Any] = [:]
        for _ in 0..<200 where state == "running" {
            try await Task.sleep(for: .milliseconds(20))
            job = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/preloads/\(id)"))
            state = job["state"] as? String ?? "?"
        }
        #expect(state == "complete")
        #expect(job["bytesDone"] as? Int == 1_000_000)
        let sent = harness.origin.bodyBytesSent
        #expect(sent >= 1_000_000)
        // Playback of the preloaded part costs the origin nothing more.
        let url = try harness.proxyURL("/files/pre.mp4?size=\(size)")
        let played = try await HTTP.fetch(url, headers: ["Range": "bytes=0-999999"])
        #expect(played.body == TestOrigin.content(name: "pre.mp4", range: 0..<1_000_000))
        #expect(harness.origin.bodyBytesSent == sent)
        let bad = try await HTTP.fetch(harness.api + "/cache/preload", method: "POST", json: #"{"url":"gopher://x/y"}"#)
        #expect(bad.status == 400)
        try await harness.stop()
    }

    @Test func aPreloadCanBeCancelled() async throws {
        let harness = try await ProxyHarness.start()
        let originURL = harness.origin.baseURL + "/files/slowpre.mp4?size=50000000&drip=16384,20"
        let started = try await HTTP.fetch(
            harness.api + "/cache/preload", method: "POST", json: #"{"url":"\#(originURL)"}"#)
        let id = try #require(try HTTP.json(started)["id"] as? String)
        try await Task.sleep(for: .milliseconds(300))
        let cancelled = try await HTTP.fetch(harness.api + "/cache/preloads/\(id)", method: "DELETE")
        #expect(cancelled.status == 200)
        var state = "running"
        for _ in 0..<100 where state == "running" {
            try await Task.sleep(for: .milliseconds(20))
            state =
                try HTTP.json(try await HTTP.fetch(harness.api + "/cache/preloads/\(id)"))["state"] as? String ?? "?"
        }
        #expect(state == "cancelled")
        try await Task.sleep(for: .milliseconds(300))
        let sent = harness.origin.bodyBytesSent
        try await Task.sleep(for: .milliseconds(300))
        #expect(harness.origin.bodyBytesSent == sent, "the origin fetch stops with the preload")
        #expect(sent < 50_000_000)
        try await harness.stop()
    }

    @Test func exportSharesTheCachedBytesAsAFile() async throws {
        let harness = try await ProxyHarness.start()
        let size = 700_000
        let originURL = harness.origin.baseURL + "/files/exp.mp4?size=\(size)"
        // Exports go only into the files root (the data folder's files/ by default).
        let destination = harness.dataDirectory + "/files/exported.mp4"
        let outside = try await HTTP.fetch(
            harness.api + "/cache/export", method: "POST",
            json: #"{"url":"\#(originURL)","path":"\#(harness.dataDirectory)/exported.mp4"}"#)
        #expect(outside.status == 403, "a path outside the files root is refused")
        let early = try await HTTP.fetch(
            harness.api + "/cache/export", method: "POST", json: #"{"url":"\#(originURL)","path":"\#(destination)"}"#)
        #expect(early.status == 409, "nothing cached yet")
        _ = try await HTTP.fetch(try harness.proxyURL("/files/exp.mp4?size=\(size)"))
        let exported = try await HTTP.fetch(
            harness.api + "/cache/export", method: "POST", json: #"{"url":"\#(originURL)","path":"\#(destination)"}"#)
        #expect(exported.status == 200)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination)))
        #expect(bytes == TestOrigin.content(name: "exp.mp4", range: 0..<size))
        var info = stat()
        #expect(stat(destination, &info) == 0)
        #expect(info.st_nlink == 2, "the export is a second name for the cached data, not a copy")
        try await harness.stop()
    }

    @Test func leastRecentlyUsedResourcesAreEvictedButPinnedOnesStay() async throws {
        let harness = try await ProxyHarness.start {
            $0.cacheSize = 2_500_000
            $0.cacheMinimumFreeDisk = 0
        }
        let size = 1_000_000
        let pinnedURL = harness.origin.baseURL + "/files/e0.mp4?size=\(size)"
        _ = try await HTTP.fetch(try harness.proxyURL("/files/e0.mp4?size=\(size)"))
        let pin = try await HTTP.fetch(harness.api + "/cache/pin", method: "POST", json: #"{"url":"\#(pinnedURL)"}"#)
        #expect(pin.status == 200)
        for index in 1...4 {
            let fetched = try await HTTP.fetch(try harness.proxyURL("/files/e\(index).mp4?size=\(size)"))
            #expect(fetched.body.count == size)
        }
        let cached = try await harness.cachedBytes(until: { (0...2_500_000).contains($0) })
        #expect((0...2_500_000).contains(cached), "\(cached) bytes cached")
        #expect(
            harness.server.engine.cache.status(of: URL(string: pinnedURL)!)?.cachedBytes == Int64(size), "pinned stays")
        #expect(
            harness.server.engine.cache.status(of: URL(string: harness.origin.baseURL + "/files/e4.mp4?size=\(size)")!)?
                .cachedBytes == Int64(size), "newest stays")
        #expect(
            harness.server.engine.cache.status(of: URL(string: harness.origin.baseURL + "/files/e1.mp4?size=\(size)")!)
                == nil, "oldest unpinned goes")
        try await harness.stop()
    }

    @Test func clearRemovesEverything() async throws {
        let harness = try await ProxyHarness.start()
        _ = try await HTTP.fetch(try harness.proxyURL("/files/c.mp4?size=100000"))
        let cleared = try await HTTP.fetch(harness.api + "/cache/clear", method: "POST")
        #expect(cleared.status == 200)
        let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
        #expect(stats["entries"] as? Int == 0)
        #expect(stats["bytes"] as? Int == 0)
        let again = try await HTTP.fetch(try harness.proxyURL("/files/c.mp4?size=100000"))
        #expect(again.body == TestOrigin.content(name: "c.mp4", range: 0..<100_000))
        #expect(harness.origin.bodyBytesSent == 200_000)
        try await harness.stop()
    }

    @Test func embeddingTakesAFewLines() async throws {
        let origin = try await TestOrigin.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-embed-\(UUID().uuidString)")
            .path
        // The embedding example of docs/guide/embedding.md, line for line.
        let proxy = try await TunerServer.start(configuration: TunerConfiguration(port: 0, dataDirectory: folder))
        let playable = try proxy.proxyURL(
            for: URL(string: "\(origin.baseURL)/files/movie.mp4?size=1000")!, headers: ["User-Agent": "MyApp/1.0"])
        // … hand `playable` to the player …
        let fetched = try await HTTP.fetch(playable.absoluteString)
        try await proxy.stop()
        #expect(playable.host == "127.0.0.1")
        #expect(fetched.body == TestOrigin.content(name: "movie.mp4", range: 0..<1000))
        try await origin.shutdown()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
