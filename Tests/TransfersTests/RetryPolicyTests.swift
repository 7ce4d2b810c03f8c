import Foundation
import MediaFormats
import Testing

@testable import Transfers

/// A generator that returns the same value every time, so jitter is known.
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: 1, multiplier: 2, maximumDelay: 10, jitter: 0.5, maximumAttempts: 5)

    @Test func backoffDoublesUpToTheCapWithoutJitterAtTheTop() {
        var top = FixedRandom(value: 0)  // fraction 0: no reduction
        #expect(policy.delay(afterFailures: 1, random: &top) == 1)
        #expect(policy.delay(afterFailures: 2, random: &top) == 2)
        #expect(policy.delay(afterFailures: 4, random: &top) == 8)
        #expect(policy.delay(afterFailures: 5, random: &top) == 10)
        #expect(policy.delay(afterFailures: 60, random: &top) == 10)
    }

    @Test func jitterShortensTheDelayByAtMostItsFraction() {
        var bottom = FixedRandom(value: .max)  // fraction ~1: the largest reduction
        let delay = policy.delay(afterFailures: 3, random: &bottom)
        #expect(delay >= 2 && delay < 2.01)
        var generator = SystemRandomNumberGenerator()
        for failures in 1...8 {
            let full = min(10, pow(2, Double(failures - 1)))
            let value = policy.delay(afterFailures: failures, random: &generator)
            #expect(value >= full * 0.5 && value <= full)
        }
    }

    @Test func onlyTransientErrorsAreRetriedAndOnlyUpToTheBudget() {
        var random = FixedRandom(value: 0)
        #expect(policy.decision(for: .transient("reset"), failures: 1, random: &random) == .retry(after: 1))
        #expect(policy.decision(for: .transient("reset"), failures: 5, random: &random) == .retry(after: 10))
        #expect(policy.decision(for: .transient("reset"), failures: 6, random: &random) == .giveUp)
        #expect(policy.decision(for: .permanent("404"), failures: 1, random: &random) == .giveUp)
        #expect(policy.decision(for: TransferError.classify(status: 403), failures: 1, random: &random) == .giveUp)
    }

    @Test func retryAfterReplacesTheBackoffAndIsCapped() {
        var random = FixedRandom(value: .max)
        let error = TransferError.classify(status: 429, retryAfter: 7)
        #expect(policy.decision(for: error, failures: 1, random: &random) == .retry(after: 7))
        var capped = policy
        capped.maximumRetryAfter = 3
        #expect(capped.decision(for: error, failures: 1, random: &random) == .retry(after: 3))
    }

    @Test func runRetriesOnlyWhatTheClassifierCallsTransient() async throws {
        struct Failure: Error { let transient: Bool? }
        let policy = RetryPolicy(baseDelay: 0.001, maximumDelay: 0.001, jitter: 0, maximumAttempts: 2)
        var calls = 0
        var retried: [Int] = []
        let value = try await policy.run {
            calls += 1
            if calls < 3 { throw Failure(transient: true) }
            return calls
        } transience: {
            ($0 as? Failure)?.transient
        } onRetry: { _, failures, _ in
            retried.append(failures)
        }
        #expect(value == 3 && retried == [1, 2])
        for (transient, expectedCalls) in [(Bool?.some(true), 3), (false, 1), (nil, 1)] {
            calls = 0
            await #expect(throws: Failure.self) {
                _ = try await policy.run { () async throws -> Int in
                    calls += 1
                    throw Failure(transient: transient)
                } transience: {
                    ($0 as? Failure)?.transient
                }
            }
            #expect(calls == expectedCalls, "\(String(describing: transient))")
        }
    }

    @Test func retryAfterParsesSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(RetryPolicy.parseRetryAfter("120", now: now) == 120)
        #expect(RetryPolicy.parseRetryAfter(" 0 ", now: now) == 0)
        #expect(RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:14:00 GMT", now: now) == 40)
        #expect(RetryPolicy.parseRetryAfter("Tuesday, 14-Nov-23 22:14:00 GMT", now: now) == 40)
        #expect(RetryPolicy.parseRetryAfter("Tue Nov 14 22:14:00 2023", now: now) == 40)
        #expect(RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.parseRetryAfter("-5", now: now) == nil)
        // Hostile values: capped at a week, never a trap or a timer past Int64.
        let week = RetryPolicy.longestRetryAfter
        #expect(RetryPolicy.parseRetryAfter("9223372036854775807", now: now) == week)
        #expect(RetryPolicy.parseRetryAfter("99999999999999999999", now: now) == nil)
        #expect(RetryPolicy.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == week)
        #expect(RetryPolicy.parseRetryAfter("+5", now: now) == nil)
        #expect(TransferError.parseRetryAfter("9223372036854775807") == week)
    }

    /// The `range` fuzz target made Foundation's DateFormatter trap on a Retry-After of letters
    /// and malformed non-ASCII text ("Incorrect range CFRange"); HTTP dates are now read by hand.
    @Test func hostileDatesAreRefusedNotTrappedOn() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let hostile = [
            "mo\u{6D6}\u{FFFD}\u{FFFD}", "Tue, 14 Nov 2023 22:14:00 GMT\u{10FFFF}",
            "Tue, 3\u{1F600} Nov 2023 22:14:00 GMT",
            "Tue, 32 Nov 2023 22:14:00 GMT", "Tue, 14 Foo 2023 22:14:00 GMT", "Tue, 14 Nov 2023 24:00:00 GMT",
            "Tue, 14 Nov 99999 22:14:00 GMT", "Tue, 14 Nov 2023 22:14 GMT", "Tuesday, 14-Nov-2023 22:14:00 GMT",
            "Tue Nov 14 22:14:00", String(repeating: "Tue, ", count: 40), "",
        ]
        for text in hostile {
            #expect(RetryPolicy.parseRetryAfter(text, now: now) == nil, "\(text)")
        }
        #expect(HTTPDateParser.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDateParser.parse("Sunday, 06-Nov-94 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDateParser.parse("Sun Nov  6 08:49:37 1994") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDateParser.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func statusesAreClassifiedAsTheIssueSays() {
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(TransferError.classify(status: status).errorClass == .transient)
        }
        for status in [404, 410, 400] {
            #expect(TransferError.classify(status: status).errorClass == .permanent)
        }
        for status in [401, 403] {
            #expect(TransferError.classify(status: status).errorClass == .needsNewURL)
        }
        #expect(TransferError.classify(POSIXError(.ENOSPC)).errorClass == .permanent)
        #expect(TransferError.classify(POSIXError(.ECONNRESET)).errorClass == .transient)
    }

    @Test func destinationNamesAreSafeAndUnique() {
        #expect(DestinationName.derive(from: "https://h/a/b/movie%20one.mp4?x=1") == "movie one.mp4")
        #expect(DestinationName.derive(from: "https://h/") == "download")
        #expect(DestinationName.sanitize("../../etc/passwd") == "etcpasswd")
        #expect(DestinationName.sanitize("..") == "download")
        let taken: Set = ["a.mp4", "a-1.mp4"]
        #expect(DestinationName.unique("a.mp4") { taken.contains($0) } == "a-2.mp4")
        #expect(DestinationName.unique("noext") { $0 == "noext" } == "noext-1")
    }
}
