import Foundation
import GRDB
import Testing

@testable import MediaCache

@Suite struct EvictionTests {
    @Test func plannerTakesOldestFirstAndSkipsUsedAndPinned() {
        let now = Date()
        let candidates = (0..<10).map { index in
            EvictionPlanner.Candidate(
                key: "k\(index)", bytes: 100, lastAccess: now.addingTimeInterval(Double(index)), inUse: index == 0,
                pinned: index == 1)
        }
        #expect(EvictionPlanner.plan(candidates: candidates, bytesToFree: 250) == ["k2", "k3", "k4"])
        #expect(EvictionPlanner.plan(candidates: candidates, bytesToFree: 0) == [])
        #expect(EvictionPlanner.plan(candidates: candidates, bytesToFree: 10_000).count == 8)
    }

    /// Ten thousand real entries (index rows and data files) evicted down to a budget.
    @Test func tenThousandEntriesAreEvictedToTheBudget() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evict-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let count = 10_000
        let keys = (0..<count).map { String(format: "%064x", $0) }
        do {
            let index = try CacheIndex(path: directory + "/index.sqlite")
            try await index.database.write { db in
                for (number, key) in keys.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO resource (key, url, length, lastAccess) VALUES (?, ?, 100, ?)",
                        arguments: [key, "http://e/\(number)", Double(number)])
                    try db.execute(sql: "INSERT INTO span (key, start, \"end\") VALUES (?, 0, 100)", arguments: [key])
                }
            }
            for key in keys {
                let path = MediaCache.dataPath(directory: directory, key: key)
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: path, contents: Data(count: 100))
            }
        }
        let cache = try MediaCache(
            configuration: MediaCacheConfiguration(directory: directory, maxBytes: 100 * 500, minimumFreeDiskBytes: 0))
        #expect(cache.statistics().entries == count)
        let started = ContinuousClock.now
        let evicted = cache.evictIfNeeded()
        let elapsed = ContinuousClock.now - started
        print("evicted \(evicted) entries in \(elapsed)")  // reported, not asserted: timings live in benchmarks
        #expect(evicted == count - 500)
        let statistics = cache.statistics()
        #expect(statistics.entries == 500)
        #expect(statistics.bytes == 100 * 500)
        // The newest 500 stay, on disk and in the index.
        #expect(FileManager.default.fileExists(atPath: MediaCache.dataPath(directory: directory, key: keys[count - 1])))
        #expect(!FileManager.default.fileExists(atPath: MediaCache.dataPath(directory: directory, key: keys[0])))
        // Not thrown before the shutdown below (a cache dropped unshut traps in a debug build).
        let reopened = (try? CacheIndex(path: directory + "/index.sqlite").loadAll()) ?? []
        #expect(reopened.count == 500)
        #expect(Set(reopened.map(\.key)) == Set(keys.suffix(500)))
        try await cache.shutdown()
    }
}
