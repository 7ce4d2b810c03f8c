import Synchronization

/// The callers of ``TransferManager/waitUntilFinished(ids:)``, each with the ids it still waits for.
///
/// Behind a `Mutex` rather than in the manager's actor state, so that a waiter's cancellation
/// handler, which is synchronous, resumes it at once instead of hopping onto the manager.
final class TransferFinishWaiters: Sendable {
    private struct Waiter {
        var pending: Set<Int64>
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextToken = 0
    }

    private let state = Mutex(State())

    /// A token for a wait about to begin, for ``cancel(_:)``.
    func reserve() -> Int {
        state.withLock { state in
            defer { state.nextToken += 1 }
            return state.nextToken
        }
    }

    /// Resumes `continuation` once every id of `pending` has settled; at once if the calling task
    /// is cancelled (its handler may have run before this).
    func register(_ token: Int, pending: Set<Int64>, _ continuation: CheckedContinuation<Void, Never>) {
        let now = state.withLock { state in
            if Task.isCancelled { return true }
            state.waiters[token] = Waiter(pending: pending, continuation: continuation)
            return false
        }
        if now { continuation.resume() }
    }

    /// The wait of `token` ends now (its task was cancelled).
    func cancel(_ token: Int) {
        state.withLock { $0.waiters.removeValue(forKey: token) }?.continuation.resume()
    }

    /// `id` finished or was deleted: resumes the waiters that waited for it last.
    func settle(_ id: Int64) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else { return [] }
            var ready: [CheckedContinuation<Void, Never>] = []
            for (token, var waiter) in state.waiters where waiter.pending.contains(id) {
                waiter.pending.remove(id)
                if waiter.pending.isEmpty {
                    state.waiters[token] = nil
                    ready.append(waiter.continuation)
                } else {
                    state.waiters[token] = waiter
                }
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Resumes every waiter (the manager has stopped).
    func releaseAll() {
        let all = state.withLock { state in
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in all { continuation.resume() }
    }
}
