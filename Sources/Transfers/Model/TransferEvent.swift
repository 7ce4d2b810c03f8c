/// A change the manager announces to its subscribers.
public enum TransferEvent: Sendable, Hashable {
    /// A task was added or changed state, offset, URL, position or error.
    case changed(TransferTask)
    /// A task's record was deleted.
    case deleted(id: Int64)
    /// Coalesced progress of an active task (at most one per task per progress interval).
    case progress(TransferProgress)
}

/// Bytes moved so far and how fast, for progress bars.
public struct TransferProgress: Codable, Hashable, Sendable {
    public var id: Int64
    /// Bytes on disk (or sent), including ones not yet committed.
    public var bytes: Int64
    public var total: Int64?
    /// Smoothed over the last few seconds.
    public var bytesPerSecond: Double
    /// Seconds left at that speed, when the total is known and the speed is not zero.
    public var etaSeconds: Double?

    public init(id: Int64, bytes: Int64, total: Int64?, bytesPerSecond: Double, etaSeconds: Double?) {
        self.id = id
        self.bytes = bytes
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.etaSeconds = etaSeconds
    }
}
