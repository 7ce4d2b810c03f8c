import Foundation
import Synchronization

/// A `Clock` that moves only when a test says so: ``advance(by:)`` wakes every sleeper whose
/// deadline has come, in deadline order. Time-driven code (retries' backoff, stall timers,
/// tickers) is then tested without waiting and without races against the wall clock.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UUID: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<UUID> = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting now: a test waits for the code under test to be asleep before
    /// it advances the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Now { case wait, wake, cancel }
                let now: Now = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait
                }
                switch now {
                case .wait: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.removeValue(forKey: id)
                if sleeper == nil { state.cancelled.insert(id) }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes the sleepers whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
