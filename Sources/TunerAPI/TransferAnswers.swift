import Foundation

/// A transfer as the API shows it (`GET /api/v1/transfers/{id}`, `PATCH` of one): the task's
/// fields, and its live progress while it runs.
public struct TransferAnswer: Codable, Sendable, Equatable {
    public var id: Int64
    /// `download-file`, `download-hls`, `upload-tus` or `upload-plain`.
    public var kind: String
    /// Where the bytes come from: an http(s) URL for downloads, a local path for uploads.
    public var sourceURL: String
    public var headers: [Header]
    /// The file (or folder) name under `<data>/downloads/`.
    public var destinationName: String
    /// Higher runs first.
    public var priority: Int
    /// Order among tasks of the same priority; lower runs first.
    public var position: Int64
    /// `waiting`, `active`, `paused`, `error`, `complete` or `removed`.
    public var state: String
    /// Bytes synced to disk and recorded.
    public var committedBytes: Int64
    public var totalBytes: Int64?
    public var expectedSHA256: String?
    public var etag: String?
    public var lastModified: String?
    public var errorReason: String?
    /// `transient`, `permanent` or `needs-new-url`.
    public var errorClass: String?
    public var retryCount: Int
    public var nextAttemptAt: Date?
    public var history: [HistoryEntry]
    public var properties: [String: String]
    public var createdAt: Date
    public var updatedAt: Date
    /// While the transfer moves bytes; absent otherwise.
    public var progress: Progress?

    /// A header sent with every request of the transfer.
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One line of the transfer's history.
    public struct HistoryEntry: Codable, Sendable, Equatable {
        public var at: Date
        public var message: String

        public init(at: Date, message: String) {
            self.at = at
            self.message = message
        }
    }

    /// How far a running transfer is.
    public struct Progress: Codable, Sendable, Equatable {
        public var id: Int64
        /// Bytes on disk (or sent), including ones not yet committed.
        public var bytes: Int64
        public var total: Int64?
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

    public init(
        id: Int64, kind: String, sourceURL: String, headers: [Header], destinationName: String, priority: Int,
        position: Int64, state: String, committedBytes: Int64, totalBytes: Int64?, expectedSHA256: String?,
        etag: String?, lastModified: String?, errorReason: String?, errorClass: String?, retryCount: Int,
        nextAttemptAt: Date?, history: [HistoryEntry], properties: [String: String], createdAt: Date,
        updatedAt: Date, progress: Progress?
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
        self.progress = progress
    }
}

/// `GET /api/v1/transfers` and `POST /api/v1/transfers`: the queue, or the transfers just added.
public struct TransferList: Codable, Sendable, Equatable {
    public var transfers: [TransferAnswer]

    public init(transfers: [TransferAnswer]) {
        self.transfers = transfers
    }
}
