import Foundation

/// When to try a failed operation again: the one retry policy of downloads and uploads (the
/// transfer queue, the HLS downloader, the tus client), catalog fetches and cache preloads. Pure,
/// so it is tested with injected randomness and time.
///
/// The delay before attempt `n + 1` (after `n` failures in a row) is
/// `min(cap, base × multiplier^(n-1))`, then jittered to a uniformly random value in
/// `[delay × (1 - jitter), delay]` so tasks failing together do not retry together. A server's
/// `Retry-After` replaces the computed delay (capped at `maximumRetryAfter`). Only transient
/// errors are retried, at most `maximumAttempts` times in a row; the manager resets the count
/// whenever the task makes progress.
public struct RetryPolicy: Sendable, Hashable {
    public var baseDelay: TimeInterval
    public var multiplier: Double
    public var maximumDelay: TimeInterval
    /// Fraction of the delay that is random, 0...1.
    public var jitter: Double
    /// Failed attempts in a row (without progress) after which the task goes to `error`.
    public var maximumAttempts: Int
    /// A longer Retry-After is shortened to this.
    public var maximumRetryAfter: TimeInterval

    public init(
        baseDelay: TimeInterval = 1, multiplier: Double = 2, maximumDelay: TimeInterval = 60, jitter: Double = 0.5,
        maximumAttempts: Int = 8, maximumRetryAfter: TimeInterval = 3600
    ) {
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(1, max(0, jitter))
        self.maximumAttempts = maximumAttempts
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The default: 1 s, 2 s, 4 s … up to 60 s, eight attempts.
    public static let standard = RetryPolicy()

    /// What to do after a failure.
    public enum Decision: Sendable, Hashable {
        /// Try again after this many seconds.
        case retry(after: TimeInterval)
        /// Stop: the error is not transient, or the attempts are used up.
        case giveUp
    }

    /// The decision after the `failures`-th failure in a row (1 for the first): only transient
    /// failures are retried; a server's `retryAfter` (seconds) replaces the backoff.
    public func decision(
        transient: Bool, retryAfter: TimeInterval? = nil, failures: Int, random: inout some RandomNumberGenerator
    ) -> Decision {
        guard transient, failures <= maximumAttempts else { return .giveUp }
        if let retryAfter {
            return .retry(after: min(max(0, retryAfter), maximumRetryAfter))
        }
        return .retry(after: delay(afterFailures: failures, random: &random))
    }

    /// Runs `operation` until it succeeds or the policy gives up. `transience` classifies what it
    /// throws: true (may pass) is retried after the backoff, false (will not pass) and nil (not a
    /// failure the policy judges, cancellation say) are thrown at once. `onRetry` hears of each
    /// failure that is retried, with the failures so far and the wait in seconds.
    public func run<T>(
        _ operation: () async throws -> T,
        transience: (any Error) -> Bool?,
        onRetry: (_ error: any Error, _ failures: Int, _ delay: TimeInterval) -> Void = { _, _, _ in }
    ) async throws -> T {
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while true {
            do {
                return try await operation()
            } catch {
                guard let transient = transience(error) else { throw error }
                failures += 1
                guard case .retry(let seconds) = decision(transient: transient, failures: failures, random: &random)
                else { throw error }
                onRetry(error, failures, seconds)
                try await Task.sleep(for: .seconds(seconds))
            }
        }
    }

    /// The jittered backoff after `failures` failures in a row.
    public func delay(afterFailures failures: Int, random: inout some RandomNumberGenerator) -> TimeInterval {
        let exponent = Double(max(0, failures - 1))
        let uncapped = baseDelay * pow(multiplier, exponent)
        let capped = min(maximumDelay, uncapped.isFinite ? uncapped : maximumDelay)
        guard jitter > 0 else { return capped }
        // The top 53 bits as a fraction in [0, 1): no rejection sampling, so a test's constant
        // generator gives a known value.
        let fraction = Double(random.next() >> 11) * 0x1p-53
        return capped * (1 - jitter * fraction)
    }

    /// The longest Retry-After taken as given; a server asking for more waits this long, so a
    /// hostile value cannot park a task for ever or overflow a timer.
    public static let longestRetryAfter: TimeInterval = 7 * 86_400

    /// Parses a Retry-After value: delay seconds, or an HTTP-date (IMF-fixdate, RFC 850 or
    /// asctime) measured from `now`. A date in the past means "now" (0); anything longer than
    /// `longestRetryAfter` is that. The one parser of the header (downloads, HLS, uploads).
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> TimeInterval? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = HeaderNumber.nonNegative(text) { return min(TimeInterval(seconds), longestRetryAfter) }
        guard let date = HTTPDateParser.parse(text) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval.isFinite else { return longestRetryAfter }
        return min(max(0, interval), longestRetryAfter)
    }
}
