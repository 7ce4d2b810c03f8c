import Dispatch
import Synchronization

/// Free space on the file system holding the cache, measured with `statvfs` but not on every
/// request: while the last reading is recent and far above the reserve, it stands.
///
/// The warm path asks after every reader; one `statvfs` each cost about 2% of a small hit.
/// Near the reserve every question measures again, so the reserve is kept as strictly as
/// before; far above it (by `margin`), a reading younger than `maxAge` cannot be wrong by
/// enough to matter (the cache writes well under `margin` in `maxAge`).
final class FreeSpaceGauge: Sendable {
    private let path: String
    private let maxAgeNanoseconds: UInt64
    private let margin: Int64
    private let last = Mutex<(bytes: Int64?, takenAt: UInt64)?>(nil)

    init(path: String, maxAgeNanoseconds: UInt64 = 250_000_000, margin: Int64 = 1 << 30) {
        self.path = path
        self.maxAgeNanoseconds = maxAgeNanoseconds
        self.margin = margin
    }

    /// Free bytes for unprivileged users, or nil when the file system cannot say. `fresh`
    /// measures regardless of the last reading (after an eviction freed space).
    func freeBytes(reserve: Int64, fresh: Bool = false) -> Int64? {
        let now = DispatchTime.now().uptimeNanoseconds
        if !fresh, let reading = last.withLock({ $0 }), now &- reading.takenAt < maxAgeNanoseconds {
            let (needed, overflow) = reserve.addingReportingOverflow(margin)
            if let bytes = reading.bytes, !overflow, bytes >= needed { return bytes }
            if reading.bytes == nil { return nil }
        }
        let bytes = freeDiskBytes(at: path)
        last.withLock { $0 = (bytes, now) }
        return bytes
    }
}
