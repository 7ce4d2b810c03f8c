import Foundation

/// The transfer manager's time, read from an injected `Clock`: "now" as a `Date` (tasks keep
/// dates: a retry's moment survives a restart), and waiting until such a date on that clock.
/// The server runs on `ContinuousClock`; tests drive a manual clock and never wait.
struct TransferTime: Sendable {
    let now: @Sendable () -> Date
    let sleepUntil: @Sendable (Date) async throws -> Void

    init<C: Clock>(clock: C) where C.Duration == Duration {
        // Dates map to the clock's instants through one pair read together.
        let anchorDate = Date()
        let anchor = clock.now
        now = { anchorDate.addingTimeInterval(anchor.duration(to: clock.now).seconds) }
        sleepUntil = { date in
            let offset = date.timeIntervalSince(anchorDate)
            // Far-off or non-finite dates (a corrupt record) wait a day and look again.
            let bounded = offset.isFinite ? min(offset, anchor.duration(to: clock.now).seconds + 86_400) : 86_400
            try await clock.sleep(until: anchor.advanced(by: .seconds(bounded)), tolerance: nil)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
