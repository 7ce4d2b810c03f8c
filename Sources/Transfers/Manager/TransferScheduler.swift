import Foundation
import MediaFormats

/// The transfer queue's decisions, pure: which waiting tasks start now and when to look again,
/// what a failed attempt becomes, and when a run has stalled. State and the time go in, decisions
/// come out; ``TransferManager`` (the executor side) carries them out, so every rule here is
/// tested without sockets, files or waiting.
public struct TransferScheduler: Sendable, Hashable {
    /// Tasks running at once.
    public var maximumActive: Int
    /// Tasks running at once against one host.
    public var maximumActivePerHost: Int
    /// A run that moves no bytes for this long is stalled: cancelled and retried.
    public var stallTimeout: TimeInterval
    public var retryPolicy: RetryPolicy

    public init(
        maximumActive: Int = 3, maximumActivePerHost: Int = 2, stallTimeout: TimeInterval = 30,
        retryPolicy: RetryPolicy = .standard
    ) {
        self.maximumActive = max(1, maximumActive)
        self.maximumActivePerHost = max(1, maximumActivePerHost)
        self.stallTimeout = stallTimeout
        self.retryPolicy = retryPolicy
    }

    /// A task that waits to run, as far as scheduling is concerned.
    public struct Candidate: Sendable, Hashable {
        public var id: Int64
        public var priority: Int
        public var position: Int64
        public var host: String
        /// Not before this moment (a retry's backoff); nil means now.
        public var nextAttemptAt: Date?

        public init(id: Int64, priority: Int, position: Int64, host: String, nextAttemptAt: Date? = nil) {
            self.id = id
            self.priority = priority
            self.position = position
            self.host = host
            self.nextAttemptAt = nextAttemptAt
        }

        public init(_ task: TransferTask) {
            self.init(
                id: task.id, priority: task.priority, position: task.position, host: task.host,
                nextAttemptAt: task.nextAttemptAt)
        }

        static func runsBefore(_ a: Candidate, _ b: Candidate) -> Bool {
            TransferScheduler.runsBefore((a.priority, a.position, a.id), (b.priority, b.position, b.id))
        }
    }

    /// Queue order: higher priority first, then lower position, then older (lower id).
    public static func runsBefore(
        _ a: (priority: Int, position: Int64, id: Int64), _ b: (priority: Int, position: Int64, id: Int64)
    ) -> Bool {
        if a.priority != b.priority { return a.priority > b.priority }
        if a.position != b.position { return a.position < b.position }
        return a.id < b.id
    }

    /// What to do now.
    public struct Plan: Sendable, Hashable {
        /// Tasks to start, in this order.
        public var start: [Int64]
        /// When a task held back by its backoff becomes due (nil: none is).
        public var wakeAt: Date?
    }

    /// Which of `waiting` start, given the hosts of the runs going on: due tasks in queue order
    /// while the global limit and their host's limit allow. `waiting` may come in any order.
    public func plan(waiting: some Sequence<Candidate>, runningHosts: [String], now: Date) -> Plan {
        plan(inQueueOrder: waiting.sorted(by: Candidate.runsBefore), runningHosts: runningHosts, now: now)
    }

    /// ``plan(waiting:runningHosts:now:)`` for candidates already in queue order (the manager keeps
    /// its waiting tasks so).
    ///
    /// It runs every time a task ends, so with a long queue it must stay cheap: it reads the
    /// candidates only until every slot is taken, and nothing at all while they are. Then `wakeAt`
    /// is nil, as no slot could take a held-back task anyway: the end of a run plans again.
    public func plan(inQueueOrder waiting: some Sequence<Candidate>, runningHosts: [String], now: Date) -> Plan {
        var active = runningHosts.count
        guard active < maximumActive else { return Plan(start: [], wakeAt: nil) }
        var perHost: [String: Int] = [:]
        for host in runningHosts { perHost[host, default: 0] += 1 }
        var wakeAt: Date?
        var start: [Int64] = []
        for candidate in waiting {
            if let at = candidate.nextAttemptAt, at > now {
                wakeAt = min(wakeAt ?? at, at)
                continue
            }
            guard perHost[candidate.host, default: 0] < maximumActivePerHost else { continue }
            start.append(candidate.id)
            active += 1
            perHost[candidate.host, default: 0] += 1
            if active == maximumActive { return Plan(start: start, wakeAt: nil) }
        }
        return Plan(start: start, wakeAt: wakeAt)
    }

    /// What a failed attempt becomes.
    public enum AttemptOutcome: Sendable, Hashable {
        /// Waits, then runs again at `at` (`after` seconds from the failure).
        case retry(at: Date, after: TimeInterval)
        /// Ends in `error`: not transient, or the attempts are used up.
        case giveUp
    }

    /// The outcome of the `failures`-th failure in a row (1 for the first) at `now`.
    public func afterFailure(
        _ error: TransferError, failures: Int, now: Date, random: inout some RandomNumberGenerator
    ) -> AttemptOutcome {
        switch retryPolicy.decision(for: error, failures: failures, random: &random) {
        case .retry(let delay): return .retry(at: now.addingTimeInterval(delay), after: delay)
        case .giveUp: return .giveUp
        }
    }

    /// True when a run whose last byte arrived at `lastByteAt` has moved nothing for longer than
    /// the stall timeout.
    public func hasStalled(lastByteAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(lastByteAt) > stallTimeout
    }

    /// How often the manager looks at its runs (progress events, stalls): the progress interval,
    /// but at least four times per stall timeout and not more often than every 50 ms.
    public func tickInterval(progressInterval: TimeInterval) -> TimeInterval {
        max(0.05, min(progressInterval, stallTimeout / 4))
    }
}
