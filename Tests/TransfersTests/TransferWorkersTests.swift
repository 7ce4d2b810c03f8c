import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import TunerStorage
import TunerTesting

@testable import Transfers

/// Several managers (nodes) on one queue: each task runs on exactly one of them, and each sees
/// what the others made of the tasks it did not run.
@Suite struct TransferWorkersTests {
    /// Downloads as the file executor does, recording which managers ran each task.
    struct CountingExecutor: TransferExecutor {
        let inner: FileDownloadExecutor
        let node: Int
        let starts: NIOLockedValueBox<[Int64: Set<Int>]>
        var kinds: [TransferKind] { inner.kinds }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            starts.withLockedValue { _ = $0[task.id, default: []].insert(node) }
            return try await inner.run(task, context: context)
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {
            try await inner.discard(task, context: context)
        }

        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {
            try await inner.deleteResult(task, context: context)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func twoManagersOnOneDatabaseRunEveryTaskOnceAndBothSeeItComplete(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let origin = try await TestOrigin.start()
        let base = NSTemporaryDirectory() + "transfer-workers-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        var logger = Logger(label: "transfer-workers-test")
        logger.logLevel = .warning
        let size = 40_000
        let starts = NIOLockedValueBox<[Int64: Set<Int>]>([:])
        var managers: [TransferManager] = []
        do {
            // Queued before either node opens it, as a node that added them and went away would.
            let stores = [
                try await database.makeStore(directory: base), try await database.makeStore(directory: base),
            ]
            let added = try await stores[0].insert(
                (0..<30).map { index in
                    TransferTask(
                        kind: .downloadFile, sourceURL: origin.baseURL + "/files/node\(index).bin?size=\(size)",
                        destinationName: "node\(index).bin", position: Int64(index))
                })
            let ids = added.map(\.id)
            // Short claims, so a task the other node holds is looked at again within a second.
            var configuration = TransfersHarness.fastConfiguration
            // Long enough that a loaded CI machine's stalls never expire a claim: this test is about
            // two live workers sharing a queue, not about taking over a dead one's tasks.
            configuration.claimLifetime = 30
            for (node, store) in stores.enumerated() {
                // A data folder each: two nodes, two worker names.
                let manager = try await TransferManager(
                    store: store, dataDirectory: base + "/node\(node)", configuration: configuration, logger: logger)
                await manager.register(
                    CountingExecutor(
                        inner: FileDownloadExecutor(httpClient: TransfersHarness.sharedClient), node: node,
                        starts: starts))
                managers.append(manager)
            }
            #expect(managers[0].workerID != managers[1].workerID)
            for manager in managers { await manager.start() }

            let views = try await withThrowingTaskGroup(of: [TransferTask]?.self) { group in
                for manager in managers {
                    group.addTask { await manager.waitUntilFinished(ids: ids) }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(180))
                    return nil
                }
                var views: [[TransferTask]] = []
                while views.count < managers.count, let next = try await group.next() {
                    guard let view = next else { break }
                    views.append(view)
                }
                group.cancelAll()
                return views
            }
            #expect(views.count == 2, "both nodes see every task finish")
            for view in views {
                #expect(view.map(\.id) == ids)
                #expect(view.allSatisfy { $0.state == .complete }, "\(view.filter { $0.state != .complete })")
            }
            // One node per task. (A run retried on its own node after a transient error, as a
            // loaded machine may see, is still one node's work.)
            let ranOn = starts.withLockedValue { $0 }
            #expect(ids.allSatisfy { ranOn[$0]?.count == 1 }, "each task ran on exactly one node: \(ranOn)")
            #expect(ranOn.count == ids.count)
            for (index, id) in ids.enumerated() {
                #expect(origin.requests(path: "/files/node\(index).bin") >= 1)
                // The file is in the folder of the node that ran it, whole, and only there.
                let holders = (0..<2).filter {
                    FileManager.default.fileExists(atPath: base + "/node\($0)/downloads/node\(index).bin")
                }
                #expect(holders.count == 1 && Set(holders) == ranOn[id], "\(holders) for \(ranOn[id] ?? [])")
                let copies = holders.map { base + "/node\($0)/downloads/node\(index).bin" }
                if let copy = copies.first {
                    #expect(
                        try FileDownloadExecutor.sha256(ofFile: copy)
                            == TransfersHarness.sha256(name: "node\(index).bin", size: size))
                }
            }
        } catch {
            for manager in managers { await manager.shutdown() }
            try? await origin.shutdown()
            await database.dispose()
            throw error
        }
        for manager in managers { await manager.shutdown() }
        try? await origin.shutdown()
        await database.dispose()
    }

    /// Runs until cancelled, recording starts and cancellations.
    final class HoldingExecutor: TransferExecutor {
        let started = NIOLockedValueBox<[Int64]>([])
        let cancelled = NIOLockedValueBox<[Int64]>([])
        var kinds: [TransferKind] { [.downloadFile] }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            started.withLockedValue { $0.append(task.id) }
            while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
            cancelled.withLockedValue { $0.append(task.id) }
            throw CancellationError()
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    /// A worker that stalled past its claim's lifetime finds out at its next renewal that another
    /// took the task over: its run stops, and it writes nothing of that task any more.
    @Test(arguments: StorageEngine.underTest)
    func aRunWhoseClaimWasTakenOverStopsWithoutWriting(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let base = NSTemporaryDirectory() + "transfer-lost-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let stores = [
                try await database.makeStore(directory: base), try await database.makeStore(directory: base),
            ]
            let task = try await stores[0].insert([
                TransferTask(kind: .downloadFile, sourceURL: "http://h.example/x.bin", destinationName: "x.bin")
            ])[0]
            // Renewed every half second.
            let configuration = TransferManager.Configuration(
                maximumActive: 1, progressInterval: 0.1, claimLifetime: 1.5)
            let executor = HoldingExecutor()
            let manager = try await TransferManager(
                store: stores[0], dataDirectory: base + "/a", configuration: configuration,
                logger: Logger(label: "test"))
            await manager.register(executor)
            await manager.start()
            #expect(await TransferBatchingTests.eventually { executor.started.withLockedValue { $0 } == [task.id] })

            // Another worker takes the claim over, as if this one's had expired.
            let later = Date().addingTimeInterval(3600)
            #expect(
                try await stores[1].claim(ids: [task.id], by: "other", until: later.addingTimeInterval(60), now: later)
                    == [task.id])
            #expect(await TransferBatchingTests.eventually { executor.cancelled.withLockedValue { $0 } == [task.id] })
            #expect(await TransferBatchingTests.eventually { await manager.task(id: task.id)?.state == .waiting })
            await manager.shutdown()
            // Never started again, never written as failed, and the other worker keeps its claim.
            #expect(executor.started.withLockedValue { $0 } == [task.id])
            let stored = try #require(try await stores[1].load(ids: [task.id]).first)
            #expect(stored.state == .waiting || stored.state == .active)
            #expect(stored.retryCount == 0 && stored.errorReason == nil)
            #expect(try await stores[1].renewClaims(by: "other", until: later) == [task.id])
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }

    /// A worker that stops renewing its claim (stalled, or cut off from the store) while a
    /// download runs: once the claim has expired another worker takes the task, and the first
    /// finds out before it puts the file in place: no file, no completion written, and the other
    /// worker keeps the task.
    @Test(arguments: StorageEngine.underTest)
    func aDownloadWhoseClaimExpiredAndWasTakenIsNotPutInPlace(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let origin = try await TestOrigin.start()
        let base = NSTemporaryDirectory() + "transfer-lost-end-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let stores = [
                try await database.makeStore(directory: base), try await database.makeStore(directory: base),
            ]
            // About six seconds of bytes: the three-second claim expires mid-download.
            let task = try await stores[0].insert([
                TransferTask(
                    kind: .downloadFile, sourceURL: origin.baseURL + "/files/x.bin?size=4000000&drip=65536,100",
                    destinationName: "x.bin")
            ])[0]
            var configuration = TransfersHarness.fastConfiguration
            configuration.claimLifetime = 3
            let counting = TransferInsertClaimTests.CountingStore(stores[0])
            counting.failRenewals.withLockedValue { $0 = true }
            let manager = try await TransferManager(
                store: counting, dataDirectory: base + "/a", configuration: configuration,
                logger: Logger(label: "test"))
            await manager.register(FileDownloadExecutor(httpClient: TransfersHarness.sharedClient))
            await manager.start()
            #expect(await TransferBatchingTests.eventually { origin.requests(path: "/files/x.bin") == 1 })

            // Another worker takes the task once the claim has expired, as it would after a stall.
            var taken: [Int64] = []
            for _ in 0..<200 where taken.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                let now = Date()
                taken = try await stores[1].claim(
                    ids: [task.id], by: "other", until: now.addingTimeInterval(3600), now: now)
            }
            #expect(taken == [task.id])
            #expect(await manager.task(id: task.id)?.state == .active, "the download ended before the claim expired")
            var state: TransferState?
            for _ in 0..<1200 {
                state = await manager.task(id: task.id)?.state
                if state != .active { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(state == .waiting, "the run ended as \(state.map { "\($0)" } ?? "nothing")")
            await manager.shutdown()
            #expect(!FileManager.default.fileExists(atPath: base + "/a/downloads/x.bin"))
            let stored = try #require(try await stores[1].load(ids: [task.id]).first)
            #expect(stored.state != .complete && stored.errorReason == nil, "\(stored)")
            #expect(try await stores[1].renewClaims(by: "other", until: Date().addingTimeInterval(60)) == [task.id])
        } catch {
            try? await origin.shutdown()
            await database.dispose()
            throw error
        }
        try? await origin.shutdown()
        await database.dispose()
    }
}
