import Foundation
import NIOConcurrencyHelpers

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

    private let box: NIOLockedValueBox<Reading>

    init(startBytes: Int64, total: Int64?, now: Date = Date()) {
        box = NIOLockedValueBox(Reading(bytes: startBytes, total: total, lastByteAt: now, startBytes: startBytes))
    }

    func update(bytes: Int64, total: Int64?, now: Date = Date()) {
        box.withLockedValue { reading in
            if bytes != reading.bytes { reading.lastByteAt = now }
            reading.bytes = bytes
            if let total { reading.total = total }
        }
    }

    /// Bytes moved on the connection that are not progress yet (a tus PATCH before the server
    /// confirms it, a segment before it is synced): enough to show the run is not stalled.
    func touch(now: Date = Date()) {
        box.withLockedValue { $0.lastByteAt = now }
    }

    var reading: Reading { box.withLockedValue { $0 } }
}
