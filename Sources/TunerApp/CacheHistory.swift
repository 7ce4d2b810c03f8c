import Foundation
import Synchronization

/// What the cache served, minute by minute, for the last day: the web app's hit-ratio chart.
///
/// ``record(hitBytes:missBytes:at:)`` takes the cache's running totals (the server calls it every
/// ``interval``); samples keep the difference from the one before, so each says what that
/// minute served from the cache and from the origin. A day of minutes is 1,440 small values.
public final class CacheHistory: Sendable {
    /// One interval: bytes served from the cache and fetched for players in it.
    public struct Sample: Sendable, Hashable, Codable {
        public var at: Date
        public var hitBytes: Int64
        public var missBytes: Int64
    }

    /// The seconds between samples.
    public static let interval: TimeInterval = 60
    /// How many are kept (a day).
    public static let capacity = 1440

    private struct State {
        var samples: [Sample] = []
        var lastTotals: (hit: Int64, miss: Int64)?
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds the interval that ended at `at`, from the cache's running totals. A total that went
    /// down (the counters restarted) starts over instead of recording a negative interval.
    public func record(hitBytes: Int64, missBytes: Int64, at: Date = Date()) {
        state.withLock { state in
            defer { state.lastTotals = (hitBytes, missBytes) }
            guard let last = state.lastTotals, hitBytes >= last.hit, missBytes >= last.miss else { return }
            let (hits, hitOverflow) = hitBytes.subtractingReportingOverflow(last.hit)
            let (misses, missOverflow) = missBytes.subtractingReportingOverflow(last.miss)
            guard !hitOverflow, !missOverflow else { return }
            state.samples.append(Sample(at: at, hitBytes: hits, missBytes: misses))
            if state.samples.count > Self.capacity { state.samples.removeFirst(state.samples.count - Self.capacity) }
        }
    }

    /// The samples, oldest first.
    public var samples: [Sample] { state.withLock { $0.samples } }
}
