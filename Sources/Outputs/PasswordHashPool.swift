import Foundation

/// Runs password hashes (PBKDF2, a few hundred milliseconds each) on a few threads of its own,
/// fairly between clients: each client (an address) has a queue, the queues are served in turn,
/// and a client has at most one hash running. So a flood of wrong passwords from one address
/// costs that address its own wait, and another client's login waits for at most the hashes
/// already running (one hash time with two threads), never for the flood. The cooperative pool's
/// threads never run a hash, so streams and the API keep their cores' share.
///
/// Threads start on demand and end after a minute without work, so an idle pool costs nothing.
public final class PasswordHashPool: @unchecked Sendable {
    private struct Job {
        var work: @Sendable () -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queues: [String: [Job]] = [:]
    /// Clients with queued work, in the order they are served.
    private var turns: [String] = []
    private var running: Set<String> = []
    private var threads = 0
    private var idle = 0
    private var finished = 0

    /// Threads at most.
    public let width: Int
    /// Jobs one client may have queued; beyond it a check fails at once (as a wrong password).
    public let perClientQueue: Int

    public init(width: Int = 2, perClientQueue: Int = 32) {
        self.width = max(width, 1)
        self.perClientQueue = max(perClientQueue, 1)
    }

    /// How many hashes have run since the pool was made (a measure for tests and metrics).
    public var hashesRun: Int {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Runs `work` (a hash comparison) for `client` in its turn; false when its queue is full.
    public func run(for client: String, _ work: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            condition.lock()
            guard (queues[client]?.count ?? 0) < perClientQueue else {
                condition.unlock()
                continuation.resume(returning: false)
                return
            }
            if queues[client] == nil { turns.append(client) }
            queues[client, default: []].append(Job(work: work, continuation: continuation))
            let start = idle == 0 && threads < width
            if start { threads += 1 }
            condition.signal()
            condition.unlock()
            if start {
                let thread = Thread { [self] in serve() }
                thread.name = "tuner-password-hash"
                thread.start()
            }
        }
    }

    private func serve() {
        condition.lock()
        while true {
            guard let (client, job) = nextJob() else {
                idle += 1
                let signalled = condition.wait(until: Date().addingTimeInterval(60))
                idle -= 1
                if !signalled, nextJobWaiting() == false {
                    threads -= 1
                    condition.unlock()
                    return
                }
                continue
            }
            running.insert(client)
            condition.unlock()
            let result = job.work()
            condition.lock()
            running.remove(client)
            finished += 1
            if queues[client]?.isEmpty ?? true {
                queues[client] = nil
                turns.removeAll { $0 == client }
            }
            // Another thread may now serve this client's next job.
            condition.signal()
            condition.unlock()
            // Counted before the caller hears: what it reads next includes its own hash.
            job.continuation.resume(returning: result)
            condition.lock()
        }
    }

    /// The next job in turn: the first client without a running hash, moved to the back.
    private func nextJob() -> (String, Job)? {
        guard let index = turns.firstIndex(where: { !running.contains($0) && !(queues[$0]?.isEmpty ?? true) }) else {
            return nil
        }
        let client = turns.remove(at: index)
        turns.append(client)
        guard var queue = queues[client], !queue.isEmpty else { return nil }
        let job = queue.removeFirst()
        queues[client] = queue
        return (client, job)
    }

    private func nextJobWaiting() -> Bool {
        turns.contains { !running.contains($0) && !(queues[$0]?.isEmpty ?? true) }
    }
}
