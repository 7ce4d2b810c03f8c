import Synchronization

/// The server's one ``LoginThrottle``, shared by every credential check (Xtream logins, access
/// tokens, API keys, sign-ins), so a guesser cannot spread its tries over several doors.
public final class CredentialThrottle: Sendable {
    public typealias Machine = LoginThrottle<ContinuousClock.Instant>

    private let machine: Mutex<Machine>
    private let now: @Sendable () -> ContinuousClock.Instant

    public init(
        limits: Machine.Limits = .standard, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        machine = Mutex(Machine(limits: limits))
        self.now = now
    }

    /// Admits an attempt or refuses it at once (see ``LoginThrottle/admit(address:username:now:)``).
    public func admit(address: String, username: String? = nil) -> Machine.Admission {
        let moment = now()
        return machine.withLock { $0.admit(address: address, username: username, now: moment) }
    }

    /// The attempt was right.
    public func succeeded(_ ticket: Machine.Ticket) {
        machine.withLock { $0.succeeded(ticket) }
    }

    /// The attempt was wrong: how long its answer waits (its username's delay).
    public func failed(_ ticket: Machine.Ticket) -> Duration {
        let moment = now()
        return machine.withLock { $0.failed(ticket, now: moment) }
    }

    /// Whole seconds for `Retry-After`, at least one.
    public static func retryAfterSeconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds) + (duration.components.attoseconds > 0 ? 1 : 0))
    }
}
