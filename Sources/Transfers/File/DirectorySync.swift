import Foundation
import Synchronization

/// Makes links and renames in one directory durable, sharing each `fsync` among the downloads
/// that finish together (a group commit): 1,000 small files finishing 5 at a time cost far fewer
/// than 1,000 directory syncs.
///
/// A lock, not an actor: a caller registers and, when no sync is running, starts one on a
/// thread outside the cooperative pool, which then syncs again for as long as calls came in
/// meanwhile. Each call waits for exactly one hand-off (its resumption), which matters when
/// every finished file waits here.
final class DirectorySync: Sendable {
    let path: String
    private let state = Mutex(State())

    private struct State {
        var requested = 0
        var syncing = false
        var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    init(path: String) {
        self.path = path
    }

    /// Returns after an fsync of the directory that started after this call.
    func sync() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let start = state.withLock { state in
                state.requested += 1
                state.waiters.append((state.requested, continuation))
                defer { state.syncing = true }
                return !state.syncing
            }
            if start { DispatchQueue.global().async { self.loop() } }
        }
    }

    /// Outside the cooperative pool: syncs until no caller is left waiting. A caller counted in
    /// `target` registered before the fsync began.
    private func loop() {
        while true {
            let target = state.withLock { $0.requested }
            PartialFile.syncDirectory(path)
            let (ready, more) = state.withLock { state in
                let ready = state.waiters.filter { $0.generation <= target }.map(\.continuation)
                state.waiters.removeAll { $0.generation <= target }
                if state.waiters.isEmpty { state.syncing = false }
                return (ready, !state.waiters.isEmpty)
            }
            ready.forEach { $0.resume() }
            if !more { return }
        }
    }
}
