import Catalog
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import TunerTesting

@testable import Transfers

/// The scheduler's limits and order, the operations, events and restore after a restart.
@Suite struct TransferManagerTests {
    /// Records which tasks are active at once, and in which order they started, from the
    /// manager's events.
    final class ActiveWatcher: Sendable {
        struct State {
            var active: [Int64: TransferTask] = [:]
            var maxTotal = 0
            var maxPerHost: [String: Int] = [:]
            var started: [Int64] = []
        }
        let state = NIOLockedValueBox(State())
        let task: Task<Void, Never>

        init(_ events: AsyncStream<TransferEvent>) {
            let state = self.state
            task = Task {
                for await event in events {
                    guard case .changed(let task) = event else { continue }
                    state.withLockedValue { state in
                        if task.state == .active {
                            if state.active[task.id] == nil { state.started.append(task.id) }
                            state.active[task.id] = task
                        } else {
                            state.active[task.id] = nil
                        }
                        let hosts = state.active.values.map(\.host)
                        state.maxTotal = max(state.maxTotal, hosts.count)
                        for host in Set(hosts) {
                            state.maxPerHost[host] = max(state.maxPerHost[host] ?? 0, hosts.filter { $0 == host }.count)
                        }
                    }
                }
            }
        }
    }

    @Test func theGlobalAndPerHostLimitsHold() async throws {
        let harness = try await TransfersHarness()
        let origin = harness.origin
        // The manager's own view, in event order: how many it started at once.
        let watcher = ActiveWatcher(harness.manager.events())
        // Two host names for the same origin: 127.0.0.1 and localhost.
        let hosts = (0..<6).map { $0 % 2 == 0 ? "127.0.0.1" : "localhost" }
        var ids: [Int64] = []
        for index in 0..<6 {
            // Dripped over about 0.6 s, so downloads that run together overlap for long.
            let url = "http://\(hosts[index]):\(origin.port)/files/limit\(index).bin?size=400000&drip=65536,100"
            ids.append(try await harness.manager.add(TransferRequest(sourceURL: url)).id)
        }
        await harness.manager.start()
        for id in ids {
            let done = try await harness.waitFinished(id)
            #expect(done.state == .complete)
        }
        // Which downloads the origin was sending at once, from when it handed over each one's
        // first and last bytes (a run with every byte in gives up its slot while it waits for
        // the disk, so the manager's own `active` count may be higher).
        var spans: [(host: String, span: ClosedRange<ContinuousClock.Instant>)] = []
        for index in 0..<6 {
            let span = try #require(origin.bodySpan(path: "/files/limit\(index).bin"))
            spans.append((hosts[index], span))
        }
        var maxTotal = 0
        var maxPerHost: [String: Int] = [:]
        for (_, span) in spans {
            // Those sending when this one began.
            let sending = spans.filter { $0.span.lowerBound <= span.lowerBound && $0.span.upperBound > span.lowerBound }
            maxTotal = max(maxTotal, sending.count)
            for host in Set(hosts) {
                maxPerHost[host] = max(maxPerHost[host] ?? 0, sending.filter { $0.host == host }.count)
            }
        }
        // Never more at once than the limits allow, on the wire…
        #expect(maxTotal <= 3)
        #expect(maxPerHost.values.allSatisfy { $0 <= 2 })
        // …and the scheduler does use them: three started together, two on one host. (Whether
        // the third one's bytes overlap the first one's on the wire depends on the machine's load.)
        let started = watcher.state.withLockedValue { $0 }
        #expect(started.maxTotal >= 3)
        #expect(started.maxPerHost.values.contains { $0 >= 2 })
        watcher.task.cancel()
        await harness.close()
    }

    @Test func priorityThenPositionDecidesTheOrder() async throws {
        var configuration = TransfersHarness.fastConfiguration
        configuration.maximumActive = 1
        let harness = try await TransfersHarness(configuration: configuration)
        let watcher = ActiveWatcher(harness.manager.events())
        let a = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("a.bin", size: 1000), paused: true))
        let b = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("b.bin", size: 1000), paused: true))
        let c = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("c.bin", size: 1000), priority: 5, paused: true))
        let d = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("d.bin", size: 1000), position: 0, paused: true))
        try await harness.manager.move(id: b.id, to: 0)
        let order = await harness.manager.list().map(\.id)
        #expect(order == [c.id, b.id, d.id, a.id])
        await harness.manager.resumeAll()
        await harness.manager.start()
        for id in [a.id, b.id, c.id, d.id] { _ = try await harness.waitFinished(id) }
        #expect(watcher.state.withLockedValue { $0.started } == [c.id, b.id, d.id, a.id])
        watcher.task.cancel()
        await harness.close()
    }

    /// Adds of one name at once (the actor waits on the store in between) get different files,
    /// and each holds its own bytes.
    @Test func concurrentAddsOfOneNameGetDistinctFiles() async throws {
        let harness = try await TransfersHarness()
        let sizes = [40_000, 50_000, 60_000, 70_000, 80_000, 90_000]
        let manager = harness.manager
        let requests = sizes.map {
            TransferRequest(sourceURL: harness.url("same-\($0).bin", size: $0), destinationName: "same.bin")
        }
        let added = try await withThrowingTaskGroup(of: TransferTask.self) { group in
            for request in requests { group.addTask { try await manager.add(request) } }
            var tasks: [TransferTask] = []
            for try await task in group { tasks.append(task) }
            return tasks
        }
        #expect(Set(added.map(\.destinationName)).count == sizes.count, "\(added.map(\.destinationName))")
        for task in added {
            let finished = try await harness.waitFinished(task.id)
            #expect(finished.state == .complete)
            let size = Int(finished.sourceURL.split(separator: "=").last!)!
            #expect(
                try harness.sha256(ofDownload: finished.destinationName)
                    == TransfersHarness.sha256(name: "same-\(size).bin", size: size))
        }
        await harness.close()
    }

    @Test(arguments: StorageEngine.underTest)
    func pauseResumeCancelAndPurge(engine: StorageEngine) async throws {
        let harness = try await TransfersHarness(engine: engine)
        await harness.manager.start()
        let slow = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("slow.bin", size: 2 << 20, "drip=65536,20")))
        try await harness.waitForCommitted(slow.id, atLeast: 300_000)
        try await harness.manager.pause(id: slow.id)
        let paused = try #require(await harness.manager.task(id: slow.id))
        #expect(paused.state == .paused)
        #expect(harness.partialSize(paused) == paused.committedBytes)
        let missing = await #expect(throws: TransferError.self) { try await harness.manager.resume(id: 999) }
        #expect(missing?.kind == .notFound && missing?.taskID == 999)
        await #expect(throws: TransferError.self) { try await harness.manager.retry(id: 999) }

        try await harness.manager.cancel(id: slow.id)
        let removed = try #require(await harness.manager.task(id: slow.id))
        #expect(removed.state == .removed)
        #expect(harness.partialSize(removed) == nil)
        let refused = await #expect(throws: TransferError.self) { try await harness.manager.resume(id: slow.id) }
        #expect(refused?.kind == .invalidState && refused?.description.contains("removed") == true)

        let quick = try await harness.manager.add(TransferRequest(sourceURL: harness.url("quick.bin", size: 5000)))
        let done = try await harness.waitFinished(quick.id)
        #expect(done.state == .complete)
        await #expect(throws: TransferError.self) { try await harness.manager.cancel(id: quick.id) }
        let purged = try await harness.manager.purgeFinished()
        #expect(purged == 2)
        #expect(await harness.manager.list().isEmpty)
        #expect(try await harness.store.loadAll().isEmpty)
        // Purging keeps finished files; delete removes them.
        #expect(FileManager.default.fileExists(atPath: harness.directory + "/downloads/quick.bin"))
        let again = try await harness.manager.add(TransferRequest(sourceURL: harness.url("quick.bin", size: 5000)))
        let second = try await harness.waitFinished(again.id)
        try await harness.manager.delete(id: again.id)
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/" + second.destinationName))
        #expect(await harness.manager.task(id: again.id) == nil)
        await harness.close()
    }

    @Test func eventsReachEverySubscriberWithProgress() async throws {
        let harness = try await TransfersHarness()
        let first = harness.manager.events()
        let second = harness.manager.events()
        await harness.manager.start()
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("events.bin", size: 1 << 20, "drip=65536,20")))
        func collect(_ stream: AsyncStream<TransferEvent>) async -> (progress: Int, complete: Bool) {
            var progress = 0
            for await event in stream {
                switch event {
                case .progress(let value) where value.id == task.id:
                    progress += 1
                    #expect(value.total == 1 << 20)
                case .changed(let changed) where changed.id == task.id && changed.state == .complete:
                    return (progress, true)
                default: break
                }
            }
            return (progress, false)
        }
        async let a = collect(first)
        async let b = collect(second)
        let (resultA, resultB) = await (a, b)
        #expect(resultA.complete && resultB.complete)
        #expect(resultA.progress > 0 && resultB.progress > 0)
        await harness.close()
    }

    @Test(arguments: StorageEngine.underTest)
    func activeTasksResumeAfterReopeningTheStoreFromTheirCheckedOffset(engine: StorageEngine) async throws {
        let size = 3 << 20
        let first = try await TransfersHarness(engine: engine)
        await first.manager.start()
        let sha = TransfersHarness.sha256(name: "restore.bin", size: size)
        let other = TransfersHarness.sha256(name: "shrunk.bin", size: size)
        let longer = try await first.manager.add(
            TransferRequest(sourceURL: first.url("restore.bin", size: size, "drip=65536,20"), expectedSHA256: sha))
        let shorter = try await first.manager.add(
            TransferRequest(sourceURL: first.url("shrunk.bin", size: size, "drip=65536,20"), expectedSHA256: other))
        try await first.waitForCommitted(longer.id, atLeast: 600_000)
        try await first.waitForCommitted(shorter.id, atLeast: 600_000)
        await first.close(keepFiles: true, keepOrigin: true)

        // What a crash leaves: bytes past the committed offset in one file, fewer in the other.
        let stored = try await first.store.loadAll()
        let longerState = try #require(stored.first { $0.id == longer.id })
        let shorterState = try #require(stored.first { $0.id == shorter.id })
        #expect(longerState.state == .active && shorterState.state == .active)
        let longerPath = first.directory + "/downloads/restore.bin.partial"
        let handle = try #require(FileHandle(forWritingAtPath: longerPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 100_000))
        try handle.close()
        let shorterPath = first.directory + "/downloads/shrunk.bin.partial"
        #expect(truncate(shorterPath, off_t(shorterState.committedBytes / 2)) == 0)

        first.origin.resetCounters()
        let second = try await TransfersHarness(
            origin: first.origin, directory: first.directory, database: first.database)
        await second.manager.start()
        let resumed = try await second.waitFinished(longer.id)
        let lowered = try await second.waitFinished(shorter.id)
        #expect(resumed.state == .complete && lowered.state == .complete)
        #expect(try second.sha256(ofDownload: "restore.bin") == sha)
        #expect(try second.sha256(ofDownload: "shrunk.bin") == other)
        #expect(lowered.history.contains { $0.message.contains("the partial file had") })
        #expect(resumed.history.contains { $0.message.contains("resuming after a restart") })
        // Only the missing bytes were fetched again.
        let expected = 2 * size - Int(longerState.committedBytes) - Int(shorterState.committedBytes / 2)
        #expect(second.origin.bodyBytesSent <= expected + size / 10)
        await second.close()
    }

    @Test func theStoreSharesTheCatalogsDatabaseFile() async throws {
        // Two migrators on one file: each applies only its own identifiers.
        let directory = NSTemporaryDirectory() + "transfers-shared-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tuner.sqlite"
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let catalog = try SQLiteCatalogStore(path: path, logger: logger)
        let store = try SQLiteTransferStore(path: path)
        _ = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, name: "s", location: "http://h/list.m3u"))
        let inserted = try await store.insert([
            TransferTask(kind: .downloadFile, sourceURL: "http://h/x", destinationName: "x")
        ])
        let reopened = try SQLiteTransferStore(path: path)
        #expect(try await reopened.loadAll().map(\.id) == inserted.map(\.id))
        #expect(try await reopened.loadAll().first?.sourceURL == "http://h/x")
        let catalogAgain = try SQLiteCatalogStore(path: path, logger: logger)
        #expect(try await catalogAgain.sources().count == 1)
    }
}
