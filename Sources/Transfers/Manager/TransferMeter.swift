import Foundation
import Synchronization

/// The live byte count of one run, written by its executor per chunk and read by the manager's
/// ticker for progress events and stall detection.
final class TransferMeter: Sendable {
    struct Reading {
        var bytes: Int64
        var total: Int64?
        var lastByteAt: Date
        /// Bytes when the run started, to tell whether the run made progress.
        var startBytes: Int64
    }

    private let box: Mutex<Reading>
    /// The manager's clock, so stalls are judged on one time line.
    private let clock: @Sendable () -> Date

    init(startBytes: Int64, total: Int64?, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        box = Mutex(
            Reading(bytes: startBytes, total: total, lastByteAt: clock(), startBytes: startBytes))
    }

    func update(bytes: Int64, total: Int64?) {
        let now = clock()
        box.withLock { reading in
            if bytes != reading.bytes { reading.lastByteAt = now }
            reading.bytes = bytes
            if let total { reading.total = total }
        }
    }

    /// Bytes moved on the connection that are not progress yet (a tus PATCH before the server
    /// confirms it, a segment before it is synced): enough to show the run is not stalled.
    func touch() {
        let now = clock()
        box.withLock { $0.lastByteAt = now }
    }

    var reading: Reading { box.withLock { $0 } }
}
