import Foundation

/// The manager's periodic tick (progress events, stall checks, lazy writes), on the injected
/// clock: a child task of ``TransferManager/run()`` that ends when that task is cancelled.
struct TransferTicker: Sendable {
    /// Seconds between ticks.
    let interval: TimeInterval
    let time: TransferTime

    /// Calls `tick` every `interval` until the calling task is cancelled. A late tick is not
    /// made up for: the next one is due an interval after it, never in the past.
    func run(_ tick: @Sendable () async -> Void) async {
        var next = time.now()
        while !Task.isCancelled {
            next = max(next.addingTimeInterval(interval), time.now())
            try? await time.sleepUntil(next)
            guard !Task.isCancelled else { return }
            await tick()
        }
    }
}
