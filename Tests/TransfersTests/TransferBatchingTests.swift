import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import Transfers

/// What makes many small downloads cheap, and the guarantees it must keep: the waiting queue in
/// order, a started task written with the next write yet never lost, waiters resumed without
/// reading events, directory syncs shared without a caller left behind, and buffers sized to
/// the body.
@Suite struct TransferBatchingTests {
    /// Blocks every run until released; counts the runs that started.
    final class GateExecutor: TransferExecutor {
        let started = NIOLockedValueBox<[Int64]>([])
        let released = NIOLockedValueBox(false)
        var kinds: [TransferKind] { [.downloadFile] }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            started.withLockedValue { $0.append(task.id) }
            while !released.withLockedValue({ $0 }) {
                try Task.checkCancellation()
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            return TransferOutcome(resultName: task.destinationName, bytes: 1)
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    /// Gives up its slot and commits its last checkpoint with `commitFinal` (as a file download
    /// does once the body is in and again before linking), then waits until released, as a
    /// download waits for its directory sync.
    final class FinishingExecutor: TransferExecutor {
        let finishing = NIOLockedValueBox<[Int64]>([])
        let released = NIOLockedValueBox(false)
        var kinds: [TransferKind] { [.downloadFile] }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            context.releaseSlot()
            try await context.commitFinal(
                TransferCheckpoint(
                    committedBytes: 1, totalBytes: 1, etag: nil, lastModified: nil,
                    properties: ["finalName": task.destinationName]))
            finishing.withLockedValue { $0.append(task.id) }
            while !released.withLockedValue({ $0 }) {
                try Task.checkCancellation()
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            return TransferOutcome(resultName: task.destinationName, bytes: 1)
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    static func folder() throws -> String {
        let directory = NSTemporaryDirectory() + "transfer-batching-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func manager(
        _ directory: String, _ executor: any TransferExecutor, maximumActive: Int = 3
    ) async throws -> TransferManager {
        let manager = try await TransferManager(
            store: SQLiteTransferStore(path: directory + "/tuner.sqlite"), dataDirectory: directory,
            configuration: TransferManager.Configuration(maximumActive: maximumActive, maximumActivePerHost: 5),
            logger: Logger(label: "test"))
        await manager.register(executor)
        return manager
    }

    /// Polls (bounded) until `condition` holds; the manager's work runs on other tasks.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<20_000 {
            if await condition() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return false
    }

    @Test func theQueueStartsTasksInPriorityThenPositionOrderAsTheyChange() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gate = GateExecutor()
        let manager = try await Self.manager(directory, gate, maximumActive: 1)
        let added = try await manager.add(
            (0..<40).map { TransferRequest(sourceURL: "http://h.example/f\($0).bin") })
        // Reordered while waiting: the last one first, then a priority above everything.
        try await manager.move(id: added[39].id, to: 0)
        let urgent = try await manager.add(TransferRequest(sourceURL: "http://h.example/urgent.bin", priority: 5))
        await manager.start()
        #expect(await Self.eventually { gate.started.withLockedValue { $0 } == [urgent.id] })
        gate.released.withLockedValue { $0 = true }
        _ = await manager.waitUntilFinished(ids: added.map(\.id) + [urgent.id])
        let order = gate.started.withLockedValue { $0 }
        #expect(order == [urgent.id, added[39].id] + added.dropLast().map(\.id))
        await manager.shutdown()
    }

    @Test func aStartedTaskReachesTheStoreWithTheNextWriteAndSurvivesACrashBeforeIt() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gate = GateExecutor()
        let first = try await Self.manager(directory, gate)
        let task = try await first.add(TransferRequest(sourceURL: "http://h.example/a.bin"))
        await first.start()
        #expect(await Self.eventually { gate.started.withLockedValue { !$0.isEmpty } })

        // A crash now (nothing flushed since the start): another process finds the task and runs it.
        let crashed = try SQLiteTransferStore(path: directory + "/tuner.sqlite").loadAllNow()
        #expect(crashed.map(\.id) == [task.id])
        #expect(crashed.first.map { $0.state == .waiting || $0.state == .active } == true)
        let finisher = GateExecutor()
        finisher.released.withLockedValue { $0 = true }
        let second = try await Self.manager(directory, finisher)
        await second.start()
        let finished = await second.waitUntilFinished(ids: [task.id])
        #expect(finished.first?.state == .complete)
        await second.shutdown()

        // Without a crash, a flush writes the start although nothing else was written.
        let third = try await Self.manager(directory, gate)
        let other = try await third.add(TransferRequest(sourceURL: "http://h.example/b.bin"))
        await third.start()
        #expect(await Self.eventually { gate.started.withLockedValue { $0.contains(other.id) } })
        await third.flush()
        let stored = try SQLiteTransferStore(path: directory + "/tuner.sqlite").loadAllNow()
        #expect(stored.first { $0.id == other.id }?.state == .active)
        gate.released.withLockedValue { $0 = true }
        await first.shutdown()
        await third.shutdown()
    }

    @Test func waitingForTasksEndsWhenTheyFinishAreDeletedOrTheWaiterIsCancelled() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gate = GateExecutor()
        let manager = try await Self.manager(directory, gate)
        let added = try await manager.add(
            (0..<3).map { TransferRequest(sourceURL: "http://h.example/w\($0).bin", paused: true) })

        let cancelled = Task { await manager.waitUntilFinished(ids: [added[0].id]) }
        cancelled.cancel()
        #expect(await cancelled.value.first?.state == .paused, "a cancelled waiter returns at once")

        let waiter = Task { await manager.waitUntilFinished(ids: added.map(\.id)) }
        try await manager.delete(id: added[0].id)
        try await manager.cancel(id: added[1].id)
        try await manager.resume(id: added[2].id)
        gate.released.withLockedValue { $0 = true }
        await manager.start()
        let finished = await waiter.value
        #expect(finished.map(\.state) == [.removed, .complete])
        await manager.shutdown()
    }

    @Test func aRunLeftWaitingForTheDiskGivesItsSlotAwayYetCanBePausedAndIsStored() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executor = FinishingExecutor()
        let manager = try await Self.manager(directory, executor, maximumActive: 1)
        let added = try await manager.add((0..<3).map { TransferRequest(sourceURL: "http://h.example/s\($0).bin") })
        await manager.start()
        // One slot, yet the second starts while the first waits for the disk; no more than one
        // such run waits at a time, so the third does not start yet.
        #expect(await Self.eventually { executor.finishing.withLockedValue { $0.count } == 2 })
        #expect(await manager.task(id: added[0].id)?.state == .active)
        #expect(await manager.task(id: added[2].id)?.state == .waiting)

        // Pausing in that window still reaches the run; its end makes room for the third.
        try await manager.pause(id: added[0].id)
        #expect(await manager.task(id: added[0].id)?.state == .paused)
        #expect(await Self.eventually { executor.finishing.withLockedValue { $0.count } == 3 })
        executor.released.withLockedValue { $0 = true }
        try await manager.resume(id: added[0].id)
        let finished = await manager.waitUntilFinished(ids: added.map(\.id))
        #expect(finished.map(\.state) == [.complete, .complete, .complete])

        // The completions are written lazily, but without any other write or a shutdown they
        // still reach the store (the ticker flushes).
        #expect(
            await Self.eventually {
                let stored = (try? SQLiteTransferStore(path: directory + "/tuner.sqlite").loadAllNow()) ?? []
                return stored.count == 3 && stored.allSatisfy { $0.state == .complete }
            })
        await manager.shutdown()
    }

    @Test func everyCallerOfADirectorySyncReturnsAndAfterASyncThatBeganLater() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sync = DirectorySync(path: directory)
        // Waves of callers arrive while syncs run: none may wait forever for a sync nobody starts.
        for _ in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<25 { group.addTask { await sync.sync() } }
            }
        }
        await sync.sync()
    }

    @Test func theHandWrittenHistoryReadsBackAsWritten() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let entries = [
            TransferHistoryEntry(at: Date(timeIntervalSince1970: 1_764_142_800.123456), message: "added"),
            TransferHistoryEntry(at: Date(timeIntervalSince1970: 0), message: "quote \" back\\slash / é 🎬"),
            TransferHistoryEntry(
                at: Date(timeIntervalSince1970: -1.5), message: "lines\nand\ttabs\r\u{0}\u{1f}\u{7f} end"),
            TransferHistoryEntry(at: Date(timeIntervalSince1970: 1e16 + 2), message: ""),
        ]
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        // Read back exactly as what JSONEncoder wrote before (dates pass through the same Double).
        let before = try decoder.decode([TransferHistoryEntry].self, from: encoder.encode(entries))
        let text = try SQLiteTransferStore.historyJSON(entries)
        let after = try decoder.decode([TransferHistoryEntry].self, from: Data(text.utf8))
        #expect(after == before)
        #expect(after.map(\.message) == entries.map(\.message))
        #expect(try SQLiteTransferStore.historyJSON([]) == "[]")
    }

    @Test func aBodyLongerThanExpectedStillLandsWhole() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID().uuidString)").path
        defer { unlink(path) }
        let file = try PartialFile(path: path)
        defer { file.close() }
        // Sized for 10 kB, handed 300 kB: the small buffers fill and go out one after another.
        let writer = DownloadWriter(
            file: file, offset: 0, hasher: SHA256(), batchBytes: 1 << 20, maximumBytesInFlight: 8 << 20,
            expectedBytes: 10_000)
        #expect(writer.batchCapacity == 12_288)
        var all: [UInt8] = []
        for index in 0..<30 {
            let chunk = [UInt8](repeating: UInt8(index), count: 10_000)
            try await writer.append(ByteBuffer(bytes: chunk))
            all += chunk
        }
        #expect(try await writer.drainAndSync() == Int64(all.count))
        let contents = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        #expect(contents == all)
        #expect(await writer.finishHashing()?.finalize() == SHA256.hash(data: all))
    }
}
