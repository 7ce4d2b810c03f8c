import Synchronization
import Testing

@testable import Transfers

/// The runner's promises: each job stops alone through its control, and a cancelled runner ends
/// only once every job it accepted has ended, refusing new ones.
@Suite struct TransferRunnerTests {
    /// How many jobs have seen their cancellation.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Work that waits until its task is cancelled and records that it was.
    static func waitingJob(_ control: TransferRunControl, cancelled: Counter) -> TransferRunner.Job {
        TransferRunner.Job(control: control) {
            await TransferRunControl().untilCancelled()
            cancelled.add()
        }
    }

    @Test("Cancelling one job's control ends that job alone; ended() returns once it has")
    func oneJobStopsAlone() async {
        let runner = TransferRunner()
        let cancelled = Counter()
        let first = TransferRunControl()
        let second = TransferRunControl()
        #expect(runner.submit(Self.waitingJob(first, cancelled: cancelled)))
        #expect(runner.submit(Self.waitingJob(second, cancelled: cancelled)))
        await withDiscardingTaskGroup { group in
            group.addTask { await runner.run() }
            first.cancel()
            await first.ended()
            #expect(cancelled.value == 1, "only the stopped job ended")
            group.cancelAll()
        }
        await second.ended()
        #expect(cancelled.value == 2)
    }

    @Test("A cancelled runner runs what was queued (cancelled) and refuses new jobs")
    func cancelledRunnerDrainsAndRefuses() async {
        let runner = TransferRunner()
        let cancelled = Counter()
        let queued = TransferRunControl()
        #expect(runner.submit(Self.waitingJob(queued, cancelled: cancelled)))
        await withDiscardingTaskGroup { group in
            group.addTask { await runner.run() }
            group.cancelAll()
        }
        await queued.ended()
        #expect(cancelled.value == 1)
        #expect(!runner.submit(Self.waitingJob(TransferRunControl(), cancelled: cancelled)))
    }
}
