/// Where a task is in its life, as in aria2.
///
/// `waiting` → `active` → `complete`, with `paused` and `error` on the side; `removed` is a
/// cancelled task whose partial data is gone (its record stays until purged).
public enum TransferState: String, Codable, Sendable, CaseIterable {
    /// Queued, or waiting out a retry backoff (see `TransferTask.nextAttemptAt`).
    case waiting
    /// An executor is moving bytes.
    case active
    /// Stopped by the user; keeps its partial data.
    case paused
    /// Failed for good (or out of retries); `retry` queues it again.
    case error
    /// Finished and verified.
    case complete
    /// Cancelled; partial data deleted.
    case removed

    /// True for the states a task never leaves by itself.
    public var isFinished: Bool { self == .complete || self == .error || self == .removed }
}
