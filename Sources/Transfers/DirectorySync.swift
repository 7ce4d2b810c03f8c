import Foundation

/// Makes links and renames in one directory durable, sharing each `fsync` among the downloads
/// that finish together (a group commit): 1,000 small files finishing 5 at a time cost far fewer
/// than 1,000 directory syncs.
actor DirectorySync {
    let path: String
    private var requested = 0
    private var completed = 0
    private var syncing = false
    private var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(path: String) {
        self.path = path
    }

    /// Returns after an fsync of the directory that started after this call.
    func sync() async {
        requested += 1
        let generation = requested
        if !syncing {
            syncing = true
            Task { await self.loop() }
        }
        await withCheckedContinuation { continuation in
            waiters.append((generation, continuation))
        }
    }

    private func loop() async {
        while completed < requested {
            let target = requested
            let path = self.path
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    PartialFile.syncDirectory(path)
                    continuation.resume()
                }
            }
            completed = target
            let ready = waiters.filter { $0.generation <= target }
            waiters.removeAll { $0.generation <= target }
            for waiter in ready { waiter.continuation.resume() }
        }
        syncing = false
    }
}
