import Foundation
import Logging
import MediaFormats
import NIOConcurrencyHelpers
import Testing
import TunerTesting

@testable import Transfers

/// The manager carrying out the scheduler's decisions on a manual clock: backoff and stall timers
/// fire when the test moves time, with an in-memory store and a scripted executor (no sockets).
@Suite struct ManualClockTransferTests {
    /// Tasks kept in memory.
    actor MemoryStore: TransferStore {
        var tasks: [Int64: TransferTask] = [:]
        var nextID: Int64 = 1

        func loadAll() -> [TransferTask] { Array(tasks.values) }

        func insert(_ new: [TransferTask], claimingFor worker: String?, until expiry: Date) -> [TransferTask] {
            new.map { task in
                var task = task
                task.id = nextID
                nextID += 1
                tasks[task.id] = task
                if task.state == .waiting, let worker { claims[task.id] = worker }
                return task
            }
        }

        func load(ids: [Int64]) -> [TransferTask] { ids.compactMap { tasks[$0] } }

        func update(_ changed: [TransferTask], releasingClaims releasing: [Int64], by worker: String) async {
            if holdsFinalUpdates, changed.contains(where: { $0.properties["finalName"] != nil }) {
                await withCheckedContinuation { heldUpdates.append($0) }
            }
            for task in changed { tasks[task.id] = task }
            releaseClaims(ids: releasing, by: worker)
        }

        /// Writes of a final checkpoint wait until `releaseUpdates()` (a busy database).
        var holdsFinalUpdates = false
        var heldUpdates: [CheckedContinuation<Void, Never>] = []
        func holdFinalUpdates() { holdsFinalUpdates = true }
        func releaseUpdates() {
            holdsFinalUpdates = false
            for update in heldUpdates { update.resume() }
            heldUpdates = []
        }
        var holdsAnUpdate: Bool { !heldUpdates.isEmpty }
        /// Another worker takes the task (its claim lapsed while this one waited).
        func giveClaim(of id: Int64, to worker: String) { claims[id] = worker }

        func delete(ids: [Int64]) { for id in ids { tasks[id] = nil } }

        // Claims without expiry: the tests run one worker.
        var claims: [Int64: String] = [:]

        func claim(ids: [Int64], by worker: String, until expiry: Date, now: Date) -> [Int64] {
            let free = ids.filter { tasks[$0] != nil && (claims[$0] == nil || claims[$0] == worker) }
            for id in free { claims[id] = worker }
            return free
        }

        func claimNext(limit: Int, by worker: String, until expiry: Date, now: Date) -> [Int64] { [] }
        func renewClaims(by worker: String, until expiry: Date) -> [Int64] {
            claims.filter { $0.value == worker }.map(\.key).sorted()
        }

        func releaseClaims(ids: [Int64], by worker: String) {
            for id in ids where claims[id] == worker { claims[id] = nil }
        }
    }

    /// Plays one scripted step per attempt: fail, hang without bytes, finish, or receive every
    /// byte and then wait for the disk until `diskDone` (as a slow directory sync does), deaf to
    /// cancellation.
    final class ScriptedExecutor: TransferExecutor {
        enum Step: Sendable { case fail, hang, finish, finishOnASlowDisk, placeAfterFinalCheckpoint }
        let steps: NIOLockedValueBox<[Step]>
        let attempts = NIOLockedValueBox(0)
        let waitingForDisk = NIOLockedValueBox(false)
        let diskDone = NIOLockedValueBox(false)
        /// Results put in place, and runs ended.
        let placed = NIOLockedValueBox(0)
        let ended = NIOLockedValueBox(0)
        var kinds: [TransferKind] { [.downloadFile] }

        init(_ steps: [Step]) { self.steps = NIOLockedValueBox(steps) }

        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            attempts.withLockedValue { $0 += 1 }
            defer { ended.withLockedValue { $0 += 1 } }
            let step = steps.withLockedValue { $0.isEmpty ? .finish : $0.removeFirst() }
            switch step {
            case .fail: throw TransferError.transient("connection reset")
            case .hang:
                // Never moves a byte; only the manager's stall cancellation ends it.
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                throw CancellationError()
            case .finish: return TransferOutcome(resultName: task.destinationName, bytes: 10)
            case .finishOnASlowDisk:
                try await context.commitFinal(
                    TransferCheckpoint(committedBytes: 10, totalBytes: 10, etag: nil, lastModified: nil))
                waitingForDisk.withLockedValue { $0 = true }
                let diskDone = diskDone
                await Task.detached {
                    while !diskDone.withLockedValue({ $0 }) { try? await Task.sleep(nanoseconds: 1_000_000) }
                }.value
                return TransferOutcome(resultName: task.destinationName, bytes: 10)
            case .placeAfterFinalCheckpoint:
                // As the file download does: the final checkpoint, then the link into place.
                try await context.commitFinal(
                    TransferCheckpoint(
                        committedBytes: 10, totalBytes: 10, etag: nil, lastModified: nil,
                        properties: ["finalName": task.destinationName]))
                placed.withLockedValue { $0 += 1 }
                return TransferOutcome(resultName: task.destinationName, bytes: 10)
            }
        }

        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    func manager(
        _ executor: ScriptedExecutor, clock: ManualClock, store: MemoryStore = MemoryStore()
    ) async throws -> TransferManager {
        let configuration = TransferManager.Configuration(
            stallTimeout: 30,
            retryPolicy: RetryPolicy(baseDelay: 10, multiplier: 2, maximumDelay: 600, jitter: 0, maximumAttempts: 5),
            progressInterval: 1)
        let manager = try await TransferManager(
            store: store, dataDirectory: NSTemporaryDirectory() + "tuner-clock-\(UUID().uuidString)",
            configuration: configuration, logger: Logger(label: "test"), clock: clock)
        await manager.register(executor)
        return manager
    }

    /// Polls (bounded) until `condition` holds; the manager's work runs on other tasks.
    func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<2000 {
            if await condition() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return false
    }

    @Test func aFailedAttemptWaitsItsBackoffOnTheClockThenRunsAgain() async throws {
        let clock = ManualClock()
        let executor = ScriptedExecutor([.fail, .finish])
        let manager = try await manager(executor, clock: clock)
        let task = try await manager.add(TransferRequest(sourceURL: "http://origin.example/a.bin"))
        await manager.start()
        #expect(await eventually { await manager.task(id: task.id)?.retryCount == 1 })
        let waiting = try #require(await manager.task(id: task.id))
        #expect(waiting.state == .waiting)
        let due = try #require(waiting.nextAttemptAt)
        #expect(abs(due.timeIntervalSince(waiting.updatedAt) - 10) < 0.5, "the backoff is 10 s on the clock")
        // Just before the backoff ends nothing runs; once it has, the second attempt finishes.
        clock.advance(by: .seconds(9))
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(executor.attempts.withLockedValue { $0 } == 1)
        clock.advance(by: .seconds(2))
        #expect(await eventually { await manager.task(id: task.id)?.state == .complete })
        #expect(executor.attempts.withLockedValue { $0 } == 2)
        await manager.shutdown()
    }

    @Test func aRunWithoutBytesIsStalledWhenTheClockPassesTheTimeout() async throws {
        let clock = ManualClock()
        let executor = ScriptedExecutor([.hang, .finish])
        let manager = try await manager(executor, clock: clock)
        let task = try await manager.add(TransferRequest(sourceURL: "http://origin.example/b.bin"))
        await manager.start()
        #expect(await eventually { await manager.task(id: task.id)?.state == .active })
        // 29 s without bytes is not a stall.
        for _ in 0..<29 { clock.advance(by: .seconds(1)) }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await manager.task(id: task.id)?.state == .active)
        // Past 30 s the ticker cancels the run and the failure is retried after its backoff.
        #expect(
            await eventually {
                clock.advance(by: .seconds(1))
                return await manager.task(id: task.id)?.retryCount == 1
            })
        #expect(await manager.task(id: task.id)?.history.contains { $0.message.contains("stalled") } == true)
        clock.advance(by: .seconds(11))
        #expect(await eventually { await manager.task(id: task.id)?.state == .complete })
        await manager.shutdown()
    }

    /// Every byte received, the result waits for the disk far past the stall timeout (a loaded
    /// machine's directory sync or busy database): the run is not stalled and runs once. A stall
    /// there ran the task again, and in a cluster another node downloaded it a second time.
    @Test func aRunWaitingForTheDiskAfterItsLastByteIsNotStalled() async throws {
        let clock = ManualClock()
        let executor = ScriptedExecutor([.finishOnASlowDisk])
        let manager = try await manager(executor, clock: clock)
        let task = try await manager.add(TransferRequest(sourceURL: "http://origin.example/c.bin"))
        await manager.start()
        #expect(await eventually { executor.waitingForDisk.withLockedValue { $0 } })
        for _ in 0..<90 { clock.advance(by: .seconds(1)) }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await manager.task(id: task.id)?.state == .active)
        executor.diskDone.withLockedValue { $0 = true }
        #expect(await eventually { await manager.task(id: task.id)?.state == .complete })
        let done = try #require(await manager.task(id: task.id))
        #expect(executor.attempts.withLockedValue { $0 } == 1)
        #expect(done.retryCount == 0)
        #expect(!done.history.contains { $0.message.contains("stalled") }, "\(done.history.map(\.message))")
        await manager.shutdown()
    }

    /// The final checkpoint's write waits on a busy database until the claim has lapsed and
    /// another worker holds the task: the run must not put its result in place after it (the
    /// other worker's would be a second copy). The claim is confirmed after that write too.
    @Test func aClaimLostWhileTheFinalCheckpointIsWrittenKeepsTheResultOutOfPlace() async throws {
        let clock = ManualClock()
        let executor = ScriptedExecutor([.placeAfterFinalCheckpoint])
        let store = MemoryStore()
        await store.holdFinalUpdates()
        let manager = try await manager(executor, clock: clock, store: store)
        let task = try await manager.add(TransferRequest(sourceURL: "http://origin.example/d.bin"))
        await manager.start()
        #expect(await eventually { await store.holdsAnUpdate })
        await store.giveClaim(of: task.id, to: "another-node")
        // Past half the claim's 60 s lifetime, so the run asks the store again.
        for _ in 0..<40 { clock.advance(by: .seconds(1)) }
        await store.releaseUpdates()
        #expect(await eventually { executor.ended.withLockedValue { $0 } == 1 })
        #expect(executor.placed.withLockedValue { $0 } == 0, "the result was put in place without the claim")
        #expect(await manager.task(id: task.id)?.state != .complete)
        await manager.shutdown()
    }
}
