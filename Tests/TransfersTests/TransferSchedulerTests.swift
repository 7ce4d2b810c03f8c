import Foundation
import MediaFormats
import NIOConcurrencyHelpers
import Testing
import Transfers

/// The queue's pure decisions: state and time in, decisions out. No sockets, no files, no waiting.
@Suite struct TransferSchedulerTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func candidate(
        _ id: Int64, host: String = "a.example", priority: Int = 0, position: Int64? = nil, at: Date? = nil
    ) -> TransferScheduler.Candidate {
        .init(id: id, priority: priority, position: position ?? id, host: host, nextAttemptAt: at)
    }

    @Test func startsDueTasksInQueueOrderWithinTheGlobalLimit() {
        let scheduler = TransferScheduler(maximumActive: 2, maximumActivePerHost: 5)
        let plan = scheduler.plan(
            waiting: [candidate(3), candidate(1), candidate(2, priority: 5), candidate(4, position: 0)],
            runningHosts: [], now: now)
        #expect(plan.start == [2, 4], "priority first, then position")
        #expect(plan.wakeAt == nil)
    }

    @Test func aBusyHostDoesNotHoldBackOtherHosts() {
        let scheduler = TransferScheduler(maximumActive: 4, maximumActivePerHost: 1)
        let plan = scheduler.plan(
            waiting: [candidate(1, host: "a"), candidate(2, host: "a"), candidate(3, host: "b")],
            runningHosts: ["b"], now: now)
        #expect(plan.start == [1], "one per host: a's second waits, b is busy")
        let full = scheduler.plan(waiting: [candidate(1)], runningHosts: ["x", "y", "z", "w"], now: now)
        #expect(full.start.isEmpty)
    }

    @Test func backoffHoldsATaskBackAndSaysWhenToLookAgain() {
        let scheduler = TransferScheduler()
        let soon = now.addingTimeInterval(5)
        let later = now.addingTimeInterval(60)
        let plan = scheduler.plan(
            waiting: [candidate(1, at: later), candidate(2, at: soon), candidate(3, at: now)], runningHosts: [],
            now: now)
        #expect(plan.start == [3], "a moment that has come is due")
        #expect(plan.wakeAt == soon, "the earliest held-back moment")
        #expect(scheduler.plan(waiting: [candidate(2, at: soon)], runningHosts: [], now: soon).start == [2])
    }

    @Test func aPlanInQueueOrderReadsOnlyAsFarAsTheFreeSlots() {
        let scheduler = TransferScheduler(maximumActive: 2, maximumActivePerHost: 5)
        let later = now.addingTimeInterval(60)
        let queue = [candidate(1, at: later)] + (2...1000).map { candidate(Int64($0)) }
        let read = NIOLockedValueBox(0)
        let counted = queue.lazy.map { candidate in
            read.withLockedValue { $0 += 1 }
            return candidate
        }
        let plan = scheduler.plan(inQueueOrder: counted, runningHosts: [], now: now)
        #expect(plan.start == [2, 3])
        #expect(read.withLockedValue { $0 } == 3, "a queue of thousands costs the few it starts")
        #expect(plan.wakeAt == nil, "no slot is free for the held-back task: the next end plans again")
        let spare = scheduler.plan(inQueueOrder: [candidate(1, at: later), candidate(2)], runningHosts: [], now: now)
        #expect(spare.start == [2])
        #expect(spare.wakeAt == later, "a slot stays free, so the backoff's end is the next look")
    }

    @Test func failuresRetryWithBackoffUntilTheAttemptsAreUsedUp() {
        var random = SystemRandomNumberGenerator()
        let policy = RetryPolicy(baseDelay: 1, multiplier: 2, maximumDelay: 60, jitter: 0, maximumAttempts: 3)
        let scheduler = TransferScheduler(retryPolicy: policy)
        let error = TransferError.transient("connection reset")
        #expect(scheduler.afterFailure(error, failures: 1, now: now, random: &random) == .retry(at: now + 1, after: 1))
        #expect(scheduler.afterFailure(error, failures: 3, now: now, random: &random) == .retry(at: now + 4, after: 4))
        #expect(scheduler.afterFailure(error, failures: 4, now: now, random: &random) == .giveUp)
        #expect(
            scheduler.afterFailure(.permanent("404 Not Found"), failures: 1, now: now, random: &random) == .giveUp)
        let busy = TransferError.transient("503", retryAfter: 30)
        #expect(scheduler.afterFailure(busy, failures: 1, now: now, random: &random) == .retry(at: now + 30, after: 30))
    }

    @Test func aRunStallsOnlyAfterTheTimeoutWithoutBytes() {
        let scheduler = TransferScheduler(stallTimeout: 30)
        #expect(!scheduler.hasStalled(lastByteAt: now, now: now + 30))
        #expect(scheduler.hasStalled(lastByteAt: now, now: now + 30.5))
        #expect(scheduler.tickInterval(progressInterval: 0.5) == 0.5)
        #expect(TransferScheduler(stallTimeout: 1).tickInterval(progressInterval: 0.5) == 0.25)
    }
}
