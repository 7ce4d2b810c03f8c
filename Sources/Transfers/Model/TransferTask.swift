import Foundation
import MediaFormats

/// A download or upload as the manager and its store keep it.
///
/// Only the manager changes a task; executors see a snapshot and report through their
/// `TransferContext`. `committedBytes` is durable: those bytes were synced to disk before the
/// number was written.
public struct TransferTask: Codable, Hashable, Sendable, Identifiable {
    public var id: Int64
    public var kind: TransferKind
    /// Where the bytes come from: an http(s) URL for downloads, a local path for uploads.
    public var sourceURL: String
    /// Sent with every request.
    public var headers: [TransferHeader]
    /// The file (or folder) name under `<data>/downloads/`; after completion, the final name
    /// (which may carry a suffix when the requested one was taken).
    public var destinationName: String
    /// Higher runs first.
    public var priority: Int
    /// Order among tasks of the same priority; lower runs first.
    public var position: Int64
    public var state: TransferState
    /// Bytes synced to disk and recorded; a resume starts here.
    public var committedBytes: Int64
    /// The full size, once a server said it.
    public var totalBytes: Int64?
    /// Lowercase hex SHA-256 the finished file must have.
    public var expectedSHA256: String?
    /// Validators of the resource the partial data came from, sent back in `If-Range`.
    public var etag: String?
    public var lastModified: String?
    /// Why the task is in `error` (or why its last attempt failed, while it waits to retry).
    public var errorReason: String?
    public var errorClass: TransferErrorClass?
    /// Failed attempts since the task last made progress.
    public var retryCount: Int
    /// A waiting task is not started before this time (retry backoff, Retry-After).
    public var nextAttemptAt: Date?
    public var history: [TransferHistoryEntry]
    /// Executor-specific values that must survive a restart (a tus upload URL, a chosen rendition).
    public var properties: [String: String]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64 = 0, kind: TransferKind, sourceURL: String, headers: [TransferHeader] = [], destinationName: String,
        priority: Int = 0, position: Int64 = 0, state: TransferState = .waiting, committedBytes: Int64 = 0,
        totalBytes: Int64? = nil, expectedSHA256: String? = nil, etag: String? = nil, lastModified: String? = nil,
        errorReason: String? = nil, errorClass: TransferErrorClass? = nil, retryCount: Int = 0,
        nextAttemptAt: Date? = nil,
        history: [TransferHistoryEntry] = [], properties: [String: String] = [:], createdAt: Date = Date(),
        updatedAt: Date = Date()
    ) {
        self.id = id
        self.kind = kind
        self.sourceURL = sourceURL
        self.headers = headers
        self.destinationName = destinationName
        self.priority = priority
        self.position = position
        self.state = state
        self.committedBytes = committedBytes
        self.totalBytes = totalBytes
        self.expectedSHA256 = expectedSHA256
        self.etag = etag
        self.lastModified = lastModified
        self.errorReason = errorReason
        self.errorClass = errorClass
        self.retryCount = retryCount
        self.nextAttemptAt = nextAttemptAt
        self.history = history
        self.properties = properties
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The host the scheduler's per-host limit counts against: the source's for downloads,
    /// the `destinationURL` property's for uploads.
    public var host: String {
        let url = properties["destinationURL"] ?? sourceURL
        return URLComponents(string: url)?.host?.lowercased() ?? ""
    }

    /// How many history entries a task keeps; older ones are dropped.
    static let historyLimit = 50

    mutating func record(_ message: String, at date: Date = Date()) {
        // History lines quote URLs (upload URLs, redirects): kept without credentials.
        history.append(TransferHistoryEntry(at: date, message: SecretRedactor.redact(message)))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
    }
}
