import Foundation
import Testing
import TunerTesting

@testable import MediaCache

/// The head lock (issue 26, point 5): while nothing has told whether an origin honours Range, a
/// reader that would start a fetch waits for the head of the one in flight, then plans with what
/// it said. Step by step on one entry, without sockets.
@Suite struct HeadLockPlannerTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headlock-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// An entry whose length is known, whose probe asked for no range (a 200 that says nothing
    /// about Range) and ended: Range support is unknown and no fetch runs.
    func makeEntry(length: Int64 = 10_000) throws -> (ResourceEntry, generation: Int) {
        let entry = ResourceEntry(key: "k", path: directory.appendingPathComponent("data").path, url: "http://o/a")
        let (adoption, id) = try entry.adopt(
            meta: ResourceMeta(length: length, etag: "\"v1\""), url: "http://o/a", finalURL: nil, fetchFrom: 0)
        guard case .replaced(_, let generation, _) = adoption, let id else { throw CancellationError() }
        #expect(entry.noteWholeBody(fetch: id, askedForRange: false))
        entry.didFinish(fetch: id, error: nil)
        return (entry, generation)
    }

    enum Step: Equatable {
        case read, memory, wait, waitForHead, changed
        case fetch(Range<Int64>)
    }

    static func step(
        _ entry: ResourceEntry, at position: Int64, generation: Int, attached: inout Set<Int>,
        headWait: Duration = .seconds(600)
    ) -> Step {
        switch entry.nextStep(
            at: position, until: position + 100, generation: generation, attached: &attached, seekThreshold: 100,
            headWait: headWait)
        {
        case .read: .read
        case .memory: .memory
        case .wait: .wait
        case .waitForHead: .waitForHead
        case .fetch(_, let range, _, _): .fetch(range)
        case .changed: .changed
        }
    }

    @Test func aSecondReaderWaitsForTheFirstHeadThenFetchesItsOwnRangeAfterA206() throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        var second: Set<Int> = []
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .waitForHead)
        // Not attached: the first fetch's range is not the second reader's.
        #expect(second.isEmpty)
        entry.noteHonoursRanges()
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .fetch(5_000..<5_100))
        // Known now: nobody waits for heads any more.
        var third: Set<Int> = []
        #expect(Self.step(entry, at: 8_000, generation: generation, attached: &third) == .fetch(8_000..<8_100))
        #expect(entry.snapshot.activeFetches == 3)
    }

    @Test func afterA200EveryReaderWaitsForTheOneWholeBody() throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        let fetch = try #require(first.first)
        var second: Set<Int> = []
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .waitForHead)
        #expect(entry.noteWholeBody(fetch: fetch, askedForRange: true))
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .wait)
        #expect(second == [fetch])
        #expect(entry.snapshot.activeFetches == 1)
    }

    @Test func aFailedHeadFetchLetsTheNextReaderBecomeTheHeadFetch() throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        let fetch = try #require(first.first)
        var second: Set<Int> = []
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .waitForHead)
        entry.didFinish(fetch: fetch, error: MediaCacheError.timeout)
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .fetch(5_000..<5_100))
        var third: Set<Int> = []
        #expect(Self.step(entry, at: 8_000, generation: generation, attached: &third) == .waitForHead)
    }

    @Test func aHeadFetchWhoseReaderLeftReleasesTheLock() throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        let fetch = try #require(first.first)
        let task = RangeIgnoringFetchTests.fetchTask()
        entry.setTask(task, for: fetch)
        var second: Set<Int> = []
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .waitForHead)
        // The first reader leaves: its fetch is cancelled and brings no head; the second reader
        // does not wait for it (the fetch's end, which would also wake it, may come much later).
        entry.detach(first)
        #expect(task.isCancelled)
        #expect(Self.step(entry, at: 5_000, generation: generation, attached: &second) == .fetch(5_000..<5_100))
    }

    @Test func theLockLastsNoLongerThanTheHeadWait() throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        var second: Set<Int> = []
        #expect(
            Self.step(entry, at: 5_000, generation: generation, attached: &second, headWait: .zero)
                == .fetch(5_000..<5_100))
    }

    @Test func aWaiterWakesAtTheDeadlineWithoutAnyChange() async throws {
        let (entry, generation) = try makeEntry()
        var first: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, generation: generation, attached: &first) == .fetch(1_000..<1_100))
        var second: Set<Int> = []
        guard
            case .waitForHead(let changes, _) = entry.nextStep(
                at: 5_000, until: 5_100, generation: generation, attached: &second, seekThreshold: 100)
        else {
            Issue.record("expected a wait for the head")
            return
        }
        // Returns although nothing changes: the deadline bounds the wait.
        await entry.waitForChange(after: changes, until: .now + .milliseconds(10))
    }
}

/// The head lock through a real cache and origin.
@Suite struct HeadLockOriginTests {
    static func makeCache() throws -> (MediaCache, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headlock-\(UUID().uuidString)")
            .path
        var configuration = MediaCacheConfiguration(
            directory: directory, maxBytes: 1 << 30, minimumFreeDiskBytes: 0,
            // `hold` is a fault of the first request only (left out of the key, so the same entry).
            keyRules: CacheKeyRules(ignoredQueryParameters: ["hold"]))
        // Long enough that neither the lock's bound nor a reader's wait cap ends a wait here on a
        // loaded machine: the tests judge fetches and bytes, not time.
        configuration.headTimeoutSeconds = 600
        configuration.maxWaitSeconds = 600
        return (try MediaCache(configuration: configuration), directory)
    }

    /// Up to a minute, polling.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1200 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    /// Leaves the entry with its length known, a few bytes held and Range support unknown: a
    /// player read the start without Range (a 200 says nothing about Range) and left.
    static func readStartWithoutRange(_ cache: MediaCache, origin: TestOrigin, url: URL) async throws -> ResourceEntry {
        let response = await cache.serve(MediaRequest(url: url))
        #expect(response.status == 200)
        let player = Task { await response.collectBody(limit: 1 << 30) }
        let entry = try #require(cache.existingEntry(for: url))
        #expect(try await eventually { entry.fileHolding(0..<65_536, generation: entry.generation) != nil })
        player.cancel()
        _ = await player.value
        #expect(try await eventually { entry.snapshot.activeFetches == 0 })
        return entry
    }

    static func starts(size: Int) -> [Int] {
        (0..<10).map { 1 << 20 + $0 * (size - (2 << 20)) / 10 }
    }

    @Test func tenColdRangesThroughAFastOriginThatIgnoresRangeCostItOneFetch() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 16 << 20
        let base = "\(origin.baseURL)/files/fast.bin?size=\(size)&norange=1"
        _ = try await Self.readStartWithoutRange(cache, origin: origin, url: URL(string: base + "&hold=65536")!)
        origin.resetCounters()
        // Ten readers at once, none of whose bytes are held, through an origin with no rate
        // limit: before the lock each started a fetch before the first head said 200.
        let url = URL(string: base)!
        let expected = TestOrigin.content(name: "fast.bin", range: 0..<size)
        let length = 256 << 10
        let bodies = await withTaskGroup(of: (Int, [UInt8]?).self) { group in
            for start in Self.starts(size: size) {
                group.addTask {
                    let response = await cache.serve(
                        MediaRequest(url: url, range: "bytes=\(start)-\(start + length - 1)"))
                    return (start, await response.collectBody(limit: 1 << 20))
                }
            }
            var bodies: [Int: [UInt8]?] = [:]
            for await (start, body) in group { bodies[start] = body }
            return bodies
        }
        for (start, body) in bodies {
            #expect(body == Array(expected[start..<(start + length)]), "range at \(start)")
        }
        let entry = try #require(cache.existingEntry(for: url))
        #expect(try await Self.eventually { entry.durableBytes == Int64(size) })
        #expect(origin.requestCount == 1)
        #expect(origin.bodyBytesSent == size, "sent \(origin.bodyBytesSent)")
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func coldRangesThroughAnOriginThatHonoursRangeStillFetchInParallel() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 16 << 20
        // Every answer sends its first 64 KiB, then nothing more: a fetch never ends, so the ten
        // ranges reach the origin only if their fetches run at the same time.
        let url = URL(string: "\(origin.baseURL)/files/parallel.bin?size=\(size)&hold=65536")!
        let entry = try await Self.readStartWithoutRange(cache, origin: origin, url: url)
        origin.resetCounters()
        let readers = Self.starts(size: size).map { start in
            Task {
                let response = await cache.serve(MediaRequest(url: url, range: "bytes=\(start)-\(start + 262_143)"))
                return await response.collectBody(limit: 1 << 20)
            }
        }
        defer { readers.forEach { $0.cancel() } }
        // The first head (206) lets the other nine fetch their own ranges while it still runs.
        #expect(try await Self.eventually { origin.requestCount == 10 }, "\(origin.requestCount) requests")
        // Each a 206 from its reader's own position (a 200 would fill the file from byte 0).
        let generation = entry.generation
        let ranges = Self.starts(size: size).map { Int64($0)..<Int64($0 + 65_536) }
        #expect(
            try await Self.eventually {
                ranges.allSatisfy { entry.fileHolding($0, generation: generation) != nil }
            })
        readers.forEach { $0.cancel() }
        try await cache.shutdown()
        try await origin.shutdown()
    }
}
