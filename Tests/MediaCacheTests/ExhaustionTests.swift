import Foundation
import Testing
import TunerTesting

@testable import MediaCache

/// Resources that hostile or broken peers could pin for ever: entries left "in use", fetches
/// nobody watches, and an origin that ignores Range.
@Suite struct ExhaustionTests {
    static func makeCache() throws -> (MediaCache, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("exhaust-\(UUID().uuidString)")
            .path
        var configuration = MediaCacheConfiguration(directory: directory, maxBytes: 1 << 30, minimumFreeDiskBytes: 0)
        // These tests judge bytes and fetches, not time: a loaded machine must not turn a reader
        // that waits for a slow whole-body fetch into a 504 (the cap has its own test).
        configuration.maxWaitSeconds = 600
        let cache = try MediaCache(configuration: configuration)
        return (cache, directory)
    }

    /// Polls (tests never assert on time, only on an outcome within a generous bound).
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<400 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return condition()
    }

    @Test func aResponseWhoseBodyNeverRunsReleasesItsEntryAndItsFetch() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 64 << 20
        // 64 KiB every 20 ms: the fetch is still running when the response is dropped.
        let url = URL(string: "\(origin.baseURL)/files/unread.bin?size=\(size)&drip=65536,20")!
        do {
            let response = await cache.serve(MediaRequest(url: url))
            #expect(response.status == 200)
            // Dropped here without running the body, as a server does when the client left first.
        }
        guard let entry = cache.existingEntry(for: url) else {
            Issue.record("no entry for \(url)")
            try await cache.shutdown()
            return
        }
        #expect(try await Self.eventually { !entry.snapshot.inUse }, "the entry stays in use")
        #expect(cache.statistics().activeFetches == 0)
        let sent = origin.bodyBytesSent
        try await Task.sleep(for: .milliseconds(300))
        #expect(origin.bodyBytesSent - sent < 1 << 20, "the origin goes on sending to nobody")
        #expect(cache.evictIfIdleForTesting(entry))
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func anOriginThatIgnoresRangeIsFetchedOnceForManySeeks() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 24 << 20
        let url = URL(string: "\(origin.baseURL)/files/norange.bin?size=\(size)&norange=1")!
        let expected = TestOrigin.content(name: "norange.bin", version: 0, range: 0..<size)
        // A player that seeks around before the first bytes arrive: each range is far beyond the
        // seek threshold, so each would start its own fetch, and each fetch gets the whole file.
        let ranges: [Range<Int>] = [
            20_000_000..<20_000_100, 9_000_000..<9_100_000, 15_000_000..<15_000_001,
            5_000_000..<5_000_010, 23_000_000..<size,
        ]
        let bodies = await withTaskGroup(of: (Range<Int>, [UInt8]?).self) { group in
            for range in ranges {
                group.addTask {
                    let response = await cache.serve(
                        MediaRequest(url: url, range: "bytes=\(range.lowerBound)-\(range.upperBound - 1)"))
                    return (range, await response.collectBody(limit: 1 << 26))
                }
            }
            var all: [(Range<Int>, [UInt8]?)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (range, body) in bodies {
            #expect(body == Array(expected[range]), "bytes \(range)")
        }
        // Every byte once, with room for bytes in flight when a fetch stops.
        #expect(origin.bodyBytesSent <= size * 3 / 2, "sent \(origin.bodyBytesSent) for a \(size)-byte file")
        try await cache.shutdown()
        try await origin.shutdown()
    }
}

extension MediaCache {
    func evictIfIdleForTesting(_ entry: ResourceEntry) -> Bool { entry.evictIfIdle() }
}

@Suite struct DescriptorAndDiskTests {
    @Test func idleDataFilesAreClosedBeyondTheLimitAndReopenedWhenRead() async throws {
        let origin = try await TestOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = MediaCacheConfiguration(directory: directory, maxBytes: 1 << 30, minimumFreeDiskBytes: 0)
        configuration.maxOpenFiles = 8
        let cache = try MediaCache(configuration: configuration)
        let urls = (0..<60).map { URL(string: "\(origin.baseURL)/files/fd\($0).bin?size=5000")! }
        for url in urls {
            let body = await cache.serve(MediaRequest(url: url)).collectBody(limit: 1 << 20)
            #expect(body?.count == 5000)
        }
        // Before the limit, all 60 stayed open until eviction. (Other suites open files too, so
        // the process-wide count is not what is compared.)
        let open = urls.filter { cache.existingEntry(for: $0)?.hasOpenFile == true }.count
        // The limit is checked before each new entry opens its file: at most one more.
        #expect(open <= 9, "\(open) data files open")
        origin.resetCounters()
        // Every resource is still served from disk, reopened on demand, without the origin.
        for (index, url) in urls.enumerated() {
            let body = await cache.serve(MediaRequest(url: url, range: "bytes=100-199")).collectBody(limit: 1 << 20)
            #expect(body == Array(TestOrigin.content(name: "fd\(index).bin", range: 100..<200)))
        }
        #expect(origin.requestCount == 0)
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func belowTheFreeDiskReserveNothingIsWrittenAndPlayersStillGetTheirBytes() async throws {
        let origin = try await TestOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("disk-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A reserve larger than any disk here: the disk is always "below" it.
        let cache = try MediaCache(
            configuration: MediaCacheConfiguration(
                directory: directory, maxBytes: 1 << 30, minimumFreeDiskBytes: 1 << 62))
        let url = URL(string: "\(origin.baseURL)/files/reserve.bin?size=300000")!
        for _ in 0..<2 {
            let body = await cache.serve(MediaRequest(url: url)).collectBody(limit: 1 << 20)
            #expect(body == Array(TestOrigin.content(name: "reserve.bin", range: 0..<300_000)))
        }
        #expect(cache.statistics().bytes == 0)
        #expect(origin.requests(path: "/files/reserve.bin") == 2)
        try await cache.shutdown()
        try await origin.shutdown()
    }
}
