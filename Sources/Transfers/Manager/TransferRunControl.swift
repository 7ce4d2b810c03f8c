import Synchronization

/// Stops one job of a ``TransferRunner`` and says when it has ended.
///
/// A child task of a task group cannot be cancelled on its own, so the runner races each job
/// against ``cancel()`` in a group of two and cancels the job when this wins. ``ended()`` lets
/// the manager wait for a run it stopped (its task's state is settled by then).
final class TransferRunControl: Sendable {
    private struct State {
        var cancelled = false
        var ended = false
        var cancelWaiter: CheckedContinuation<Void, Never>?
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// True once ``cancel()`` was called: the manager stopped the job (not a shutdown of the runner).
    var isCancelled: Bool { state.withLock(\.cancelled) }

    /// Cancels the job; it ends as soon as its work honours cancellation.
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.cancelWaiter = nil }
            return state.cancelWaiter
        }
        waiter?.resume()
    }

    /// Returns once ``cancel()`` is called or the calling task is cancelled.
    func untilCancelled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if state.cancelled || Task.isCancelled { return true }
                    state.cancelWaiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.cancelWaiter = nil }
                return state.cancelWaiter
            }
            waiter?.resume()
        }
    }

    /// Called by the runner once the job's work has returned.
    func markEnded() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            defer { state.endWaiters = [] }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the job has ended (at once if it has).
    func ended() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.ended { return true }
                state.endWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
