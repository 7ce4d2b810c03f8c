import Synchronization

/// Runs the manager's jobs (each transfer's run, the wake-up of a backoff) as child tasks of the
/// manager's ``TransferManager/run()``, so none outlives it.
///
/// Jobs are submitted from the manager's synchronous scheduling and wait in a queue until
/// ``run()`` picks them up. Each one runs against its ``TransferRunControl``, which stops it
/// alone. When the task calling ``run()`` is cancelled, the runner closes: it refuses new jobs,
/// runs the queued ones (they start cancelled and end at once), and returns when all have ended.
final class TransferRunner: Sendable {
    /// Work and the control that stops it.
    struct Job: Sendable {
        let control: TransferRunControl
        let work: @Sendable () async -> Void
    }

    private struct State {
        var queue: [Job] = []
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let state = Mutex(State())

    /// Queues `job`; false once the runner has closed (the job does not run).
    func submit(_ job: Job) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.closed else { return (false, nil) }
            state.queue.append(job)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return accepted
    }

    /// Runs the submitted jobs until the calling task is cancelled and every job has ended.
    func run() async {
        await withDiscardingTaskGroup { group in
            while let jobs = await next() {
                for job in jobs {
                    group.addTask { await Self.execute(job) }
                }
            }
        }
    }

    /// The queued jobs, waiting for one; nil once closed and drained.
    private func next() async -> [Job]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if !state.queue.isEmpty || state.closed || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.closed = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
        return state.withLock { state in
            if Task.isCancelled { state.closed = true }
            let jobs = state.queue
            state.queue = []
            return jobs.isEmpty && state.closed ? nil : jobs
        }
    }

    /// Runs `job` until its work returns, cancelling the work when its control is cancelled.
    private static func execute(_ job: Job) async {
        await withTaskGroup(of: Void.self) { race in
            race.addTask { await job.work() }
            race.addTask { await job.control.untilCancelled() }
            await race.next()
            race.cancelAll()
        }
        job.control.markEnded()
    }
}
