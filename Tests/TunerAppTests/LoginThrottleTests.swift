import Foundation
import Testing
import TunerApp

/// The credential throttle's decisions, with a manual clock: a hard limit per address that
/// counts parallel tries and refuses at once, a growing delay per username for wrong answers
/// only, nothing global, and bounded tables.
@Suite struct LoginThrottleTests {
    typealias Throttle = LoginThrottle<ContinuousClock.Instant>
    let start = ContinuousClock.now
    let limits = Throttle.Limits(
        addressLimit: 3, addressWindow: .seconds(60), freeFailures: 2, usernameWindow: .seconds(120),
        usernameDelay: .seconds(1), usernameMaxDelay: .seconds(5), capacity: 4)

    func ticket(_ admission: Throttle.Admission) throws -> Throttle.Ticket {
        guard case .admitted(let ticket) = admission else {
            Issue.record("refused: \(admission)")
            throw CancellationError()
        }
        return ticket
    }

    @Test("running tries count: a parallel flood is checked at most twice the limit, a burst of right ones passes")
    func parallelTriesCount() throws {
        var throttle = Throttle(limits: limits)
        var flood: [Throttle.Ticket] = []
        for _ in 0..<6 { flood.append(try ticket(throttle.admit(address: "a", username: "u", now: start))) }
        #expect(throttle.admit(address: "a", username: "u", now: start) == .refused(retryAfter: .seconds(1)))
        // Another address is not affected: nothing is global.
        _ = try ticket(throttle.admit(address: "b", username: "u", now: start))
        // Once three of them failed, the address is refused until the oldest leaves the window.
        for tried in flood.prefix(3) { _ = throttle.failed(tried, now: start) }
        #expect(throttle.admit(address: "a", username: nil, now: start) == .refused(retryAfter: .seconds(60)))
        // A burst of right ones from a player: each ends before the next few begin, all pass.
        for _ in 0..<5 {
            let burst = try (0..<5).map { _ in try ticket(throttle.admit(address: "tv", username: "v", now: start)) }
            for done in burst { throttle.succeeded(done) }
        }
    }

    @Test("a refusal says when the oldest try leaves the window, and then tries pass again")
    func windowSlides() throws {
        var throttle = Throttle(limits: limits)
        for second in 0..<3 {
            let now = start + .seconds(second * 10)
            _ = throttle.failed(try ticket(throttle.admit(address: "a", username: nil, now: now)), now: now)
        }
        #expect(
            throttle.admit(address: "a", username: nil, now: start + .seconds(45)) == .refused(retryAfter: .seconds(15))
        )
        _ = try ticket(throttle.admit(address: "a", username: nil, now: start + .seconds(60)))
    }

    @Test("a right answer does not count against its address")
    func successesAreForgotten() throws {
        var throttle = Throttle(limits: limits)
        for _ in 0..<10 {
            throttle.succeeded(try ticket(throttle.admit(address: "a", username: "u", now: start)))
        }
        _ = try ticket(throttle.admit(address: "a", username: "u", now: start))
    }

    @Test("a username's wrong answers wait longer and longer, up to the cap; its right ones never wait")
    func usernameDelayGrows() throws {
        var throttle = Throttle(limits: limits)
        var delays: [Duration] = []
        for index in 0..<7 {
            // From different addresses, as a spread-out guesser would.
            let now = start + .seconds(index)
            delays.append(
                throttle.failed(try ticket(throttle.admit(address: "a\(index)", username: "u", now: now)), now: now))
        }
        #expect(delays == [.zero, .zero, .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        // The owner's right password from another address is admitted, not locked out.
        let owner = try ticket(throttle.admit(address: "home", username: "u", now: start + .seconds(8)))
        throttle.succeeded(owner)
        // Another name is not slowed by u's guesser.
        let other = try ticket(throttle.admit(address: "x", username: "v", now: start + .seconds(8)))
        #expect(throttle.failed(other, now: start + .seconds(8)) == .zero)
        // Past the window the name starts afresh.
        let later = start + .seconds(200)
        #expect(
            throttle.failed(try ticket(throttle.admit(address: "y", username: "u", now: later)), now: later) == .zero)
    }

    @Test("the tables stay within their capacity under a flood of addresses and names")
    func memoryIsBounded() throws {
        var throttle = Throttle(limits: limits)
        for index in 0..<1_000 {
            let now = start + .milliseconds(index)
            _ = throttle.failed(
                try ticket(
                    throttle.admit(address: "10.0.\(index / 256).\(index % 256)", username: "n\(index)", now: now)),
                now: now)
        }
        #expect(throttle.trackedCount.addresses <= 4)
        #expect(throttle.trackedCount.usernames <= 4)
    }

    @Test("token strength: weak tokens fail, 32 hex digits, 22 base64url characters and the generated token pass")
    func tokenStrength() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-token-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try DataFolder(path: folder.path).loadOrCreateToken()
        #expect(TokenStrength.isStrong(generated), "\(TokenStrength.bits(of: generated)) bits")
        for weak in [
            "1234", "password", "s3cret", "correcthorse", String(repeating: "a", count: 64),
            String(repeating: "ab", count: 40), "0123456789abcdef0123456789abcde", "AbCdEfGhIjKlMnOpQrStU",
        ] {
            #expect(!TokenStrength.isStrong(weak), "\(weak) passed with \(TokenStrength.bits(of: weak)) bits")
        }
        for strong in [
            "0123456789abcdef0123456789abcdef", "Xk3_vQ9-Lm2pRt7wZ5yB0c",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c",
            "guard-test-token-5f0c2a9e81d34b7c9a6e",
        ] {
            #expect(TokenStrength.isStrong(strong), "\(strong) failed with \(TokenStrength.bits(of: strong)) bits")
        }
    }
}
