import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import TunerStorage
import TunerTesting

@testable import Transfers

/// A task a manager adds is claimed for it by the insert itself: no other worker can claim it
/// while that manager lives, the manager starts it without asking the store again, and the
/// claim goes when the task leaves the queue or the manager shuts down.
@Suite struct TransferInsertClaimTests {
    /// Counts the claims a manager asks its store for, and fails its renewals when asked to;
    /// everything else passes through.
    final class CountingStore: TransferStore {
        let inner: any TransferStore
        let claims = NIOLockedValueBox(0)
        /// Claims the store has answered.
        let answered = NIOLockedValueBox(0)
        /// While set, renewals fail as they do for a worker cut off from its store.
        let failRenewals = NIOLockedValueBox(false)
        /// How many of the next writes fail, as they do when SQLite stays busy past its timeout.
        let failingUpdates = NIOLockedValueBox(0)
        /// Writes that failed.
        let failedUpdates = NIOLockedValueBox(0)

        init(_ inner: any TransferStore) { self.inner = inner }

        func loadAll() async throws -> [TransferTask] { try await inner.loadAll() }
        func load(ids: [Int64]) async throws -> [TransferTask] { try await inner.load(ids: ids) }
        func insert(_ tasks: [TransferTask], claimingFor worker: String?, until expiry: Date) async throws
            -> [TransferTask]
        {
            try await inner.insert(tasks, claimingFor: worker, until: expiry)
        }
        func update(_ tasks: [TransferTask], releasingClaims releasing: [Int64], by worker: String) async throws {
            let fails = failingUpdates.withLockedValue { count in
                guard count > 0 else { return false }
                count -= 1
                return true
            }
            if fails {
                failedUpdates.withLockedValue { $0 += 1 }
                throw StorageUnavailableError(address: "test", reason: "database is locked", kind: .connectionLost)
            }
            try await inner.update(tasks, releasingClaims: releasing, by: worker)
        }
        func delete(ids: [Int64]) async throws { try await inner.delete(ids: ids) }
        func claim(ids: [Int64], by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
            claims.withLockedValue { $0 += 1 }
            defer { answered.withLockedValue { $0 += 1 } }
            return try await inner.claim(ids: ids, by: worker, until: expiry, now: now)
        }
        func claimNext(limit: Int, by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
            try await inner.claimNext(limit: limit, by: worker, until: expiry, now: now)
        }
        func renewClaims(by worker: String, until expiry: Date) async throws -> [Int64] {
            if failRenewals.withLockedValue({ $0 }) {
                throw StorageUnavailableError(address: "test", reason: "renewals fail", kind: .connectionLost)
            }
            return try await inner.renewClaims(by: worker, until: expiry)
        }
        func releaseClaims(ids: [Int64], by worker: String) async throws {
            try await inner.releaseClaims(ids: ids, by: worker)
        }
    }

    /// Finishes every run at once, counting them.
    struct InstantExecutor: TransferExecutor {
        let runs: NIOLockedValueBox<[Int64]>
        var kinds: [TransferKind] { [.downloadFile] }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            runs.withLockedValue { $0.append(task.id) }
            return TransferOutcome(resultName: task.destinationName, bytes: 1)
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    private static func requests(_ count: Int) -> [TransferRequest] {
        (0..<count).map { TransferRequest(kind: .downloadFile, sourceURL: "http://h.example/f\($0).bin") }
    }

    @Test(arguments: StorageEngine.underTest)
    func tasksAddedHereAreClaimedByTheInsertAndStartWithoutAnotherClaim(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let base = NSTemporaryDirectory() + "transfer-insert-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let store = CountingStore(try await database.makeStore(directory: base))
            let other = try await database.makeStore(directory: base)
            let runs = NIOLockedValueBox<[Int64]>([])
            // Claims that a stalled CI machine cannot bring within a third of their lifetime between
            // the insert and the start: the count below is about the round trips, not the clock.
            var configuration = TransfersHarness.fastConfiguration
            configuration.claimLifetime = 3600
            let manager = try await TransferManager(
                store: store, dataDirectory: base + "/a", configuration: configuration, logger: Logger(label: "test"))
            await manager.register(InstantExecutor(runs: runs))
            let added = try await manager.add(Self.requests(5))
            let ids = added.map(\.id)
            let paused = try await manager.add(
                TransferRequest(kind: .downloadFile, sourceURL: "http://h.example/p.bin", paused: true))

            // Held by this manager from the insert on: another worker gets none of them, and the
            // paused one is nobody's.
            let now = Date()
            #expect(try await other.claim(ids: ids, by: "other", until: now.addingTimeInterval(60), now: now) == [])
            #expect(
                Set(try await other.renewClaims(by: manager.workerID, until: now.addingTimeInterval(60))) == Set(ids))

            // Leaving the queue before it starts gives the claim up with that write.
            try await manager.pause(id: ids[4])
            await manager.flush()
            #expect(
                Set(try await other.renewClaims(by: manager.workerID, until: now.addingTimeInterval(60)))
                    == Set(ids[0..<4]))
            try await manager.resume(id: ids[4])

            await manager.start()
            let finished = await manager.waitUntilFinished(ids: ids)
            #expect(finished.allSatisfy { $0.state == .complete })
            #expect(Set(runs.withLockedValue { $0 }) == Set(ids))
            // Only the task that gave its claim up asked for one again.
            #expect(store.claims.withLockedValue { $0 } == 1)
            await manager.flush()
            #expect(try await other.renewClaims(by: manager.workerID, until: now.addingTimeInterval(60)) == [])
            #expect(paused.state == .paused)
            await manager.shutdown()
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }

    /// A write that fails (SQLite busy past its timeout, PostgreSQL gone a moment) is not
    /// dropped: the finished tasks' `complete` and the release of their claims reach the store
    /// with a later write, so no other worker runs them again once the claims would have expired.
    @Test(arguments: StorageEngine.underTest)
    func aFailedWriteIsWrittenAgainWithItsClaimReleases(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let base = NSTemporaryDirectory() + "transfer-insert-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let store = CountingStore(try await database.makeStore(directory: base))
            let other = try await database.makeStore(directory: base)
            let runs = NIOLockedValueBox<[Int64]>([])
            var configuration = TransfersHarness.fastConfiguration
            configuration.claimLifetime = 3600
            let manager = try await TransferManager(
                store: store, dataDirectory: base + "/a", configuration: configuration, logger: Logger(label: "test"))
            await manager.register(InstantExecutor(runs: runs))
            let ids = try await manager.add(Self.requests(4)).map(\.id)
            store.failingUpdates.withLockedValue { $0 = 2 }
            await manager.start()
            let finished = await manager.waitUntilFinished(ids: ids)
            #expect(finished.allSatisfy { $0.state == .complete })
            #expect(await TransferBatchingTests.eventually { store.failedUpdates.withLockedValue { $0 } == 2 })
            // The ticker writes again after the pause (1 s, then 2 s): every row says complete
            // and no claim of this worker is left.
            var stored: [TransferTask] = []
            for _ in 0..<200 {
                stored = try await other.load(ids: ids)
                if stored.allSatisfy({ $0.state == .complete }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(stored.map(\.state) == Array(repeating: .complete, count: ids.count))
            await manager.flush()
            let now = Date()
            #expect(try await other.renewClaims(by: manager.workerID, until: now.addingTimeInterval(60)) == [])
            #expect(try await other.claim(ids: ids, by: "other", until: now.addingTimeInterval(60), now: now) == [])
            #expect(runs.withLockedValue { $0.sorted() } == ids.sorted())
            await manager.shutdown()
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }

    @Test(arguments: StorageEngine.underTest)
    func aShutdownGivesUpTheClaimsOfTasksNotStarted(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let base = NSTemporaryDirectory() + "transfer-insert-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let store = try await database.makeStore(directory: base)
            let other = try await database.makeStore(directory: base)
            let manager = try await TransferManager(
                store: store, dataDirectory: base + "/a", configuration: TransfersHarness.fastConfiguration,
                logger: Logger(label: "test"))
            await manager.register(InstantExecutor(runs: NIOLockedValueBox([])))
            let ids = try await manager.add(Self.requests(3)).map(\.id)
            await manager.shutdown()
            // Another node takes them at once, without waiting for the claims to expire.
            let now = Date()
            #expect(try await other.claim(ids: ids, by: "other", until: now.addingTimeInterval(60), now: now) == ids)
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }

    /// A claim the insert took but nobody renewed (the manager was not running) is asked for
    /// again at the start; if another worker took it over meanwhile, the task is not run here.
    @Test(arguments: StorageEngine.underTest)
    func anExpiredInsertClaimIsClaimedAgainAtTheStart(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let base = NSTemporaryDirectory() + "transfer-insert-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let store = CountingStore(try await database.makeStore(directory: base))
            let other = try await database.makeStore(directory: base)
            var configuration = TransfersHarness.fastConfiguration
            configuration.claimLifetime = 1
            let runs = NIOLockedValueBox<[Int64]>([])
            let manager = try await TransferManager(
                store: store, dataDirectory: base + "/a", configuration: configuration, logger: Logger(label: "test"))
            await manager.register(InstantExecutor(runs: runs))
            let id = try await manager.add(Self.requests(1))[0].id
            // Past the claim's lifetime: another worker takes the task over.
            try await Task.sleep(for: .milliseconds(1_100))
            let now = Date()
            #expect(try await other.claim(ids: [id], by: "other", until: now.addingTimeInterval(600), now: now) == [id])
            await manager.start()
            #expect(await TransferBatchingTests.eventually { store.answered.withLockedValue { $0 } >= 1 })
            #expect(await TransferBatchingTests.eventually { await manager.task(id: id)?.state == .waiting })
            await manager.flush()
            await manager.shutdown()
            #expect(runs.withLockedValue { $0 } == [])
            #expect(try await other.renewClaims(by: "other", until: now.addingTimeInterval(600)) == [id])
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }
}
