import Foundation
import Testing
import TunerTesting

@testable import MediaCache

/// The planner's rules for an origin that ignores Range (issue 26, point 5), step by step on one
/// entry, without sockets: readers behind the whole body read what it wrote, readers ahead wait
/// for it, nobody starts a second fetch while one runs, and the whole body outlives its readers.
@Suite struct RangeIgnoringFetchTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("norange-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func makeEntry(length: Int64 = 10_000) throws -> (ResourceEntry, generation: Int, probeFetch: Int) {
        let entry = ResourceEntry(key: "k", path: directory.appendingPathComponent("data").path, url: "http://o/a")
        let (adoption, id) = try entry.adopt(
            meta: ResourceMeta(length: length, etag: "\"v1\""), url: "http://o/a", finalURL: nil, fetchFrom: 0)
        guard case .replaced(_, let generation, _) = adoption, let id else {
            throw CancellationError()
        }
        return (entry, generation, id)
    }

    /// A task that runs until cancelled, standing in for a fetch's body loop.
    static func fetchTask() -> Task<Void, Never> {
        Task { try? await Task.sleep(for: .seconds(3600)) }
    }

    enum Step: Equatable {
        case read, memory, wait, changed
        case fetch(Range<Int64>)
    }

    static func step(
        _ entry: ResourceEntry, at position: Int64, until end: Int64, generation: Int, attached: inout Set<Int>,
        seekThreshold: Int64 = 100
    ) -> Step {
        switch entry.nextStep(
            at: position, until: end, generation: generation, attached: &attached, seekThreshold: seekThreshold)
        {
        case .read: .read
        case .memory: .memory
        case .wait, .waitForHead: .wait
        case .fetch(_, let range, _, _): .fetch(range)
        case .changed: .changed
        }
    }

    @Test func readersBehindReadReadersAheadWaitAndNoSecondFetchStarts() throws {
        let (entry, generation, probe) = try makeEntry()
        // The probe asked for bytes=5000-5099 and got 200 with everything from byte 0.
        #expect(entry.noteWholeBody(fetch: probe, askedForRange: true))
        let task = Self.fetchTask()
        defer { task.cancel() }
        entry.setTask(task, for: probe)
        entry.didWrite(fetch: probe, range: 0..<1_000, generation: generation)

        // Behind the fetch: the bytes are on disk.
        var behind: Set<Int> = []
        #expect(Self.step(entry, at: 200, until: 300, generation: generation, attached: &behind) == .read)
        #expect(behind.isEmpty)
        // Far ahead (beyond the seek threshold, which would start a fetch of its own): waits.
        var ahead: Set<Int> = []
        #expect(Self.step(entry, at: 9_000, until: 9_100, generation: generation, attached: &ahead) == .wait)
        #expect(ahead == [probe])
        // An open-ended read ahead waits for the same fetch too.
        var open: Set<Int> = []
        #expect(Self.step(entry, at: 5_000, until: 10_000, generation: generation, attached: &open) == .wait)
        #expect(open == [probe])
        #expect(entry.snapshot.activeFetches == 1)

        // Every reader leaves: the whole body goes on (stopping it would make the next read of
        // any later byte fetch everything before it again).
        entry.detach([probe])
        entry.detach(ahead)
        entry.detach(open)
        #expect(!task.isCancelled)
        #expect(entry.shouldContinue(fetch: probe, at: 1_000))
    }

    @Test func aSecondWholeBodyIsDroppedAndTheFirstGoesOnToTheEnd() throws {
        let (entry, generation, probe) = try makeEntry()
        // The probe asked for no range: its 200 says nothing about Range yet.
        #expect(entry.noteWholeBody(fetch: probe, askedForRange: false))
        let task = Self.fetchTask()
        defer { task.cancel() }
        entry.setTask(task, for: probe)
        entry.didWrite(fetch: probe, range: 0..<500, generation: generation)
        // A seek far ahead: Range is not known to be ignored, so it fetches its own range and
        // the first fetch is told to stop there.
        var seeker: Set<Int> = []
        #expect(
            Self.step(entry, at: 8_000, until: 9_000, generation: generation, attached: &seeker)
                == .fetch(8_000..<9_000))
        let gap = try #require(seeker.first)
        #expect(!entry.shouldContinue(fetch: probe, at: 8_000))
        // The gap fetch's answer is 200 from byte 0: another whole body is on its way, so this
        // one is dropped and the first goes on to the end again.
        #expect(!entry.noteWholeBody(fetch: gap, askedForRange: true))
        entry.didFinish(fetch: gap, error: nil)
        #expect(entry.shouldContinue(fetch: probe, at: 9_999))
        // The seeker's next step waits for the first fetch instead of starting a third.
        #expect(Self.step(entry, at: 8_000, until: 9_000, generation: generation, attached: &seeker) == .wait)
        #expect(seeker.contains(probe))
        #expect(entry.snapshot.activeFetches == 1)
    }

    @Test func afterAFailureOneReaderFetchesAndTheOthersWaitForIt() throws {
        let (entry, generation, probe) = try makeEntry()
        #expect(entry.noteWholeBody(fetch: probe, askedForRange: true))
        entry.setTask(Self.fetchTask(), for: probe)
        entry.didWrite(fetch: probe, range: 0..<3_000, generation: generation)
        entry.didFinish(fetch: probe, error: MediaCacheError.timeout)

        // The first reader to plan starts the one new fetch, from its own position: an origin
        // that honours ranges now resumes there, one that does not sends everything again.
        var first: Set<Int> = []
        #expect(
            Self.step(entry, at: 3_000, until: 10_000, generation: generation, attached: &first)
                == .fetch(3_000..<10_000))
        let resumed = try #require(first.first)
        var second: Set<Int> = []
        #expect(Self.step(entry, at: 7_000, until: 7_100, generation: generation, attached: &second) == .wait)
        #expect(second == [resumed])
        var third: Set<Int> = []
        #expect(Self.step(entry, at: 1_000, until: 4_000, generation: generation, attached: &third) == .read)

        // It answers 206: the origin honours Range after all, so a reader far ahead fetches its
        // own range instead of waiting, and fetches stop again when their readers leave.
        entry.noteHonoursRanges()
        let task = Self.fetchTask()
        entry.setTask(task, for: resumed)
        var farAhead: Set<Int> = []
        #expect(
            Self.step(entry, at: 9_000, until: 9_500, generation: generation, attached: &farAhead)
                == .fetch(9_000..<9_500))
        entry.detach(first)
        entry.detach(second)
        #expect(task.isCancelled)
    }

    @Test func aWholeBodyWithoutRangeKnownIgnoredStopsWhenItsReadersLeave() throws {
        let (entry, _, probe) = try makeEntry()
        // A 200 to a request without Range: nothing says ranges fail, so nobody watching means stop.
        #expect(entry.noteWholeBody(fetch: probe, askedForRange: false))
        let task = Self.fetchTask()
        entry.setTask(task, for: probe)
        entry.detach([probe])
        #expect(task.isCancelled)
    }
}

/// The same rules through a real cache and origin: a reader cancelled while it waits, and the cap
/// on how long a reader waits for its next byte.
@Suite struct RangeIgnoringWaitTests {
    /// A cache whose readers wait `maxWaitSeconds` at most; long by default, so that a loaded
    /// machine does not turn a slow fetch into a 504 in tests that judge bytes, not time.
    static func makeCache(maxWaitSeconds: Int64 = 600) throws -> (MediaCache, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nowait-\(UUID().uuidString)")
            .path
        var configuration = MediaCacheConfiguration(directory: directory, maxBytes: 1 << 30, minimumFreeDiskBytes: 0)
        configuration.maxWaitSeconds = maxWaitSeconds
        return (try MediaCache(configuration: configuration), directory)
    }

    @Test func aReaderCancelledWhileWaitingLeavesTheWholeBodyToFinish() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 4 << 20
        let url = URL(string: "\(origin.baseURL)/files/left.bin?size=\(size)&norange=1&drip=65536,5")!
        // The first range teaches the cache that the origin ignores Range.
        let first = await cache.serve(MediaRequest(url: url, range: "bytes=0-99"))
        #expect(await first.collectBody(limit: 1 << 20) == Array(TestOrigin.content(name: "left.bin", range: 0..<100)))
        // A reader of the last bytes waits for the fetch, then its player leaves.
        let last = await cache.serve(MediaRequest(url: url, range: "bytes=\(size - 100)-"))
        let reader = Task { await last.collectBody(limit: 1 << 20) }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        #expect(await reader.value == nil)
        // Nobody reads any more, and the fetch still fills the file: the next read of any byte
        // would otherwise fetch everything before it again.
        let entry = try #require(cache.existingEntry(for: url))
        #expect(try await ExhaustionTests.eventually { entry.durableBytes == Int64(size) })
        #expect(try await ExhaustionTests.eventually { !entry.snapshot.inUse })
        #expect(origin.requestCount == 1)
        #expect(origin.bodyBytesSent == size)
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func aSeekDuringAWholeBodyDoesNotStartASecondOne() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 16 << 20
        let url = URL(string: "\(origin.baseURL)/files/seek.bin?size=\(size)&norange=1&drip=65536,5")!
        let expected = TestOrigin.content(name: "seek.bin", range: 0..<size)
        // A player reads from the start without Range (a 200 that says nothing about Range yet)...
        let whole = await cache.serve(MediaRequest(url: url))
        let player = Task { await whole.collectBody(limit: 1 << 25) }
        // ...and another seeks near the end: its fetch gets 200 from byte 0 too. That one is
        // dropped and the seeker waits for the first, which goes on to the end.
        let seek = await cache.serve(MediaRequest(url: url, range: "bytes=\(size - 1000)-"))
        #expect(await seek.collectBody(limit: 1 << 20) == Array(expected[(size - 1000)...]))
        #expect(await player.value == expected)
        #expect(origin.requestCount == 2)
        // The dropped answer cost only what was in flight when it was closed (on a loaded machine
        // the loopback socket buffers can hold a few megabytes; a second whole body would be the
        // file again).
        #expect(origin.bodyBytesSent < size + size / 2, "sent \(origin.bodyBytesSent)")
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func aReaderGivesUpAfterTheWaitCapWhileTheFetchGoesOn() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try Self.makeCache(maxWaitSeconds: 1)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 64 << 20
        // About 650 KB/s: the last bytes are more than a minute away.
        let url = URL(string: "\(origin.baseURL)/files/slow.bin?size=\(size)&norange=1&drip=65536,100")!
        let first = await cache.serve(MediaRequest(url: url, range: "bytes=0-99"))
        #expect(await first.collectBody(limit: 1 << 20)?.count == 100)
        let far = await cache.serve(MediaRequest(url: url, range: "bytes=\(size - 100)-"))
        #expect(far.status == 206)
        // The wait ends with an error (the server closes the connection), not with the bytes.
        #expect(await far.collectBody(limit: 1 << 20) == nil)
        let entry = try #require(cache.existingEntry(for: url))
        #expect(entry.snapshot.activeFetches == 1)
        #expect(origin.requestCount == 1)
        try await cache.shutdown()
        try await origin.shutdown()
    }
}
