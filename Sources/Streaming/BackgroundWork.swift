import Foundation
import Synchronization

/// Work that outlives the request that started it (preloads, HLS segment pre-fetch). Every task
/// is kept here until it ends, so ``shutdown()`` cancels and awaits all of them before the cache
/// they write into closes: nothing runs untracked.
public final class BackgroundWork: Sendable {
    private struct State {
        var tasks: [UUID: Task<Void, Never>] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Starts `work` as a tracked task; nil once shutdown has begun (the work does not run).
    @discardableResult
    public func start(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        let id = UUID()
        return state.withLock { state in
            guard !state.closed else { return nil }
            // The task can end before this returns: it removes itself under the same lock, which
            // it can only take once the task is registered.
            let task = Task { [weak self] in
                await work()
                _ = self?.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
            state.tasks[id] = task
            return task
        }
    }

    /// Tasks running now.
    public var count: Int { state.withLock { $0.tasks.count } }

    /// Refuses new work, cancels what runs and returns when all of it has ended.
    public func shutdown() async {
        let tasks = state.withLock { state in
            state.closed = true
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
