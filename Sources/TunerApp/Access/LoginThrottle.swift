/// The decisions behind every credential check (Xtream logins, access tokens, API keys, sign-ins):
/// a pure state machine fed with the time, like `TransferScheduler`, so it is tested with a
/// manual clock. ``CredentialThrottle`` holds one behind a lock for the server.
///
/// - Per client address, a hard limit: once `addressLimit` failed attempts fall in
///   `addressWindow`, the next is refused at once, with the time until the oldest leaves the
///   window. Attempts still running count too, up to twice the limit: a parallel flood is checked
///   at most `2 × addressLimit` times before any answer, while a player's burst of right logins
///   (a dozen requests at start) passes. A right attempt is forgotten. Nothing is hashed for a
///   refusal.
/// - Per username, a delay for that name's wrong attempts only: after `freeFailures` in
///   `usernameWindow`, each further wrong answer waits `usernameDelay × 2^(extra − 1)`, at most
///   `usernameMaxDelay`. A right password is never delayed and never refused for its name, so an
///   attacker cannot lock the owner out; no limit is global.
/// - Both tables hold at most `capacity` entries: expired ones go first, then the least recently
///   seen, so a flood of addresses or names costs bounded memory.
public struct LoginThrottle<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The limits; ``standard`` is what the server uses.
    public struct Limits: Sendable, Equatable {
        public var addressLimit: Int
        public var addressWindow: Duration
        public var freeFailures: Int
        public var usernameWindow: Duration
        public var usernameDelay: Duration
        public var usernameMaxDelay: Duration
        public var capacity: Int

        public init(
            addressLimit: Int, addressWindow: Duration, freeFailures: Int, usernameWindow: Duration,
            usernameDelay: Duration, usernameMaxDelay: Duration, capacity: Int
        ) {
            self.addressLimit = addressLimit
            self.addressWindow = addressWindow
            self.freeFailures = freeFailures
            self.usernameWindow = usernameWindow
            self.usernameDelay = usernameDelay
            self.usernameMaxDelay = usernameMaxDelay
            self.capacity = capacity
        }

        /// Ten tries per address in five minutes (a household's typos pass, 2,880 guesses a day
        /// at most); five free wrong passwords per name in fifteen minutes, then 1 s, 2 s, 4 s …
        /// up to 30 s per wrong answer.
        public static var standard: Limits {
            Limits(
                addressLimit: 10, addressWindow: .seconds(300), freeFailures: 5, usernameWindow: .seconds(900),
                usernameDelay: .seconds(1), usernameMaxDelay: .seconds(30), capacity: 10_000)
        }
    }

    /// What to do with an attempt.
    public enum Admission: Sendable, Equatable {
        /// Check it; report the outcome with the ticket.
        case admitted(Ticket)
        /// Refuse it without checking; the caller may retry after the duration.
        case refused(retryAfter: Duration)
    }

    /// An admitted attempt, to report with ``succeeded(_:)`` or ``failed(_:now:)``.
    public struct Ticket: Sendable, Equatable {
        public let address: String
        public let username: String?
        let stamp: Instant
    }

    public let limits: Limits
    /// Per address: the instants of failed and running attempts in the window.
    private var addresses: [String: [Instant]] = [:]
    /// Per address: how many of those are still running.
    private var running: [String: Int] = [:]
    private var usernames: [String: [Instant]] = [:]

    public init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// Admits an attempt from `address` (for `username`, when the credential names one) or refuses it.
    public mutating func admit(address: String, username: String?, now: Instant) -> Admission {
        var recent = Self.within(addresses[address] ?? [], window: limits.addressWindow, now: now)
        let limit = max(limits.addressLimit, 1)
        let inFlight = running[address] ?? 0
        if recent.count - inFlight >= limit, let oldest = recent.first {
            addresses[address] = recent
            return .refused(retryAfter: max(.zero, now.duration(to: oldest.advanced(by: limits.addressWindow))))
        }
        if recent.count >= 2 * limit {
            // Running attempts fill the rest: they end within a hash or two.
            return .refused(retryAfter: .seconds(1))
        }
        recent.append(now)
        Self.store(recent, at: address, in: &addresses, limits: limits, now: now)
        running[address] = inFlight + 1
        return .admitted(Ticket(address: address, username: username, stamp: now))
    }

    /// The attempt was right: it no longer counts against its address.
    public mutating func succeeded(_ ticket: Ticket) {
        finish(ticket)
        guard var recent = addresses[ticket.address], let index = recent.lastIndex(of: ticket.stamp) else { return }
        recent.remove(at: index)
        addresses[ticket.address] = recent.isEmpty ? nil : recent
    }

    private mutating func finish(_ ticket: Ticket) {
        let left = (running[ticket.address] ?? 1) - 1
        running[ticket.address] = left > 0 ? left : nil
    }

    /// The attempt was wrong: it keeps counting against its address, and against its username,
    /// whose next wrong answers wait. Returns how long this wrong answer waits before it goes out.
    public mutating func failed(_ ticket: Ticket, now: Instant) -> Duration {
        finish(ticket)
        guard let username = ticket.username else { return .zero }
        var recent = Self.within(usernames[username] ?? [], window: limits.usernameWindow, now: now)
        recent.append(now)
        // A bound per name: the delay is capped long before this many.
        if recent.count > 64 { recent.removeFirst(recent.count - 64) }
        Self.store(recent, at: username, in: &usernames, limits: limits, now: now)
        let extra = recent.count - limits.freeFailures
        guard extra > 0 else { return .zero }
        // 2^(extra-1) with the exponent bounded, so the product never overflows.
        let delay = limits.usernameDelay * (1 << min(extra - 1, 16))
        return min(delay, limits.usernameMaxDelay)
    }

    /// How many addresses and names are tracked (for tests of the memory bound).
    public var trackedCount: (addresses: Int, usernames: Int) { (addresses.count, usernames.count) }

    private static func within(_ stamps: [Instant], window: Duration, now: Instant) -> [Instant] {
        stamps.filter { $0.duration(to: now) < window }
    }

    private static func store(
        _ stamps: [Instant], at key: String, in table: inout [String: [Instant]], limits: Limits, now: Instant
    ) {
        let capacity = max(limits.capacity, 1)
        if table[key] == nil, table.count >= capacity {
            // Full: the stale go first (past the longer window nothing matters), then the least
            // recently seen, one at a time.
            let horizon = max(limits.addressWindow, limits.usernameWindow)
            table = table.filter { _, value in value.last.map { $0.duration(to: now) < horizon } ?? false }
            if table.count >= capacity,
                let stalest = table.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key
            {
                table[stalest] = nil
            }
        }
        table[key] = stamps
    }
}
