import Foundation
import MediaFormats

/// Every failure in Transfers: a refused manager operation, an HLS download that stopped, an
/// upload step the server refused, a file that could not be written.
///
/// `kind` says what went wrong and `errorClass` what to do about it (retry later, give up, or ask
/// for a new URL); the optional fields say where (which step, URL, segment, HTTP status). The
/// manager, the HLS downloader, the tus client and the plain uploader all throw this type, so a
/// caller matches one type and never a string. Task cancellation is not reported with it: the
/// workers rethrow `CancellationError`.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct with static members, so new kinds never break a caller's `switch`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// No task has the id (see `taskID`).
        public static let notFound = Kind(name: "not found")
        /// The operation does not apply to the task in its state (pausing a finished task).
        public static let invalidState = Kind(name: "invalid state")
        /// The request itself is wrong: a bad URL, checksum or file name.
        public static let invalidRequest = Kind(name: "invalid request")
        /// The server answered with an error status (see `status`).
        public static let httpStatus = Kind(name: "HTTP status")
        /// The connection failed: refused, reset, timed out, closed early.
        public static let transport = Kind(name: "transport")
        /// No byte arrived for the stall timeout.
        public static let stalled = Kind(name: "stalled")
        /// The body was not as long as `Content-Length` (or the byte range) said.
        public static let lengthMismatch = Kind(name: "length mismatch")
        /// The playlist is live (no `#EXT-X-ENDLIST`); only VODs can be downloaded.
        public static let liveStream = Kind(name: "live stream")
        /// A playlist could not be parsed, or has no segments.
        public static let invalidPlaylist = Kind(name: "invalid playlist")
        /// No variant of the master playlist fits the requested rendition.
        public static let noMatchingVariant = Kind(name: "no matching variant")
        /// The stream needs something this downloader does not fetch (DRM keys).
        public static let unsupported = Kind(name: "unsupported")
        /// Reading or writing a local file failed (disk full, permissions, a file that shrank).
        public static let fileSystem = Kind(name: "file system")
        /// The destination holds another download (of a different URL).
        public static let destinationInUse = Kind(name: "destination in use")
        /// The server's answer breaks its protocol (a tus answer without `Upload-Offset`, say).
        public static let protocolViolation = Kind(name: "protocol violation")
        /// A failure without a more precise kind.
        public static let other = Kind(name: "failed")

        public var description: String { name }
    }

    /// The step that failed, for failures inside a download or an upload.
    public struct Operation: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

        /// Downloading an HLS stream (a playlist, key, map or segment of it).
        public static let hlsDownload = Operation(name: "HLS download")
        /// tus OPTIONS (the server's capabilities).
        public static let options = Operation(name: "options")
        /// tus creation (POST).
        public static let create = Operation(name: "create")
        /// tus HEAD (the server's offset).
        public static let offset = Operation(name: "offset")
        /// tus PATCH (sending bytes).
        public static let patch = Operation(name: "patch")
        /// tus termination (DELETE).
        public static let terminate = Operation(name: "terminate")
        /// A plain PUT or POST of the whole file.
        public static let send = Operation(name: "send")
        /// Reading the local file of an upload.
        public static let readFile = Operation(name: "read file")
    }

    public var kind: Kind
    /// Whether to retry later, give up, or ask for a new URL.
    public var errorClass: TransferErrorClass
    /// What failed and what to do, for people.
    public var reason: String
    /// The step that failed, when it happened inside a download or an upload.
    public var operation: Operation?
    /// The URL of the failing request (or the local path for ``Operation/readFile``).
    public var url: String?
    /// The HTTP status of the last try, when the server answered.
    public var status: Int?
    /// The server's Retry-After, in seconds, when it sent one.
    public var retryAfter: TimeInterval?
    /// The server's committed offset, when the failure told it (tus servers add Upload-Offset
    /// to 409 answers).
    public var serverOffset: Int64?
    /// The 0-based index of the failing segment of an HLS media playlist (for a byte-range file
    /// shared by several segments, the first segment that failed).
    public var segmentIndex: Int?
    /// `"audio"` when the HLS file belongs to the separate audio rendition of the chosen variant
    /// (then `segmentIndex` counts that rendition's segments).
    public var rendition: String?
    /// How many tries were made, when the step was retried in place.
    public var attempts: Int
    /// The error of the last try (an AsyncHTTPClient, NIO or POSIX error), when there was one.
    public var underlying: (any Error)?
    /// The task the failure is about, for refused manager operations.
    public var taskID: Int64?

    /// A failure; its class follows from `kind` and `status` unless given: an HTTP status by
    /// ``TransferErrorClass/init(status:)``, transport, stall and length failures transient,
    /// everything else permanent.
    public init(
        _ kind: Kind, errorClass: TransferErrorClass? = nil, operation: Operation? = nil, url: String? = nil,
        status: Int? = nil, retryAfter: TimeInterval? = nil, serverOffset: Int64? = nil, segmentIndex: Int? = nil,
        rendition: String? = nil, attempts: Int = 0, underlying: (any Error)? = nil, taskID: Int64? = nil,
        _ reason: String
    ) {
        self.kind = kind
        self.errorClass = errorClass ?? Self.defaultClass(kind: kind, status: status)
        self.reason = reason
        self.operation = operation
        self.url = url
        self.status = status
        self.retryAfter = retryAfter
        self.serverOffset = serverOffset
        self.segmentIndex = segmentIndex
        self.rendition = rendition
        self.attempts = attempts
        self.underlying = underlying
        self.taskID = taskID
    }

    private static func defaultClass(kind: Kind, status: Int?) -> TransferErrorClass {
        if kind == .httpStatus, let status { return TransferErrorClass(status: status) }
        switch kind {
        case .transport, .stalled, .lengthMismatch: return .transient
        default: return .permanent
        }
    }

    /// Worth retrying after a backoff.
    public static func transient(_ reason: String, retryAfter: TimeInterval? = nil, status: Int? = nil) -> TransferError
    {
        TransferError(
            status == nil ? .other : .httpStatus, errorClass: .transient, status: status, retryAfter: retryAfter, reason
        )
    }

    /// Retrying cannot help.
    public static func permanent(_ reason: String, status: Int? = nil) -> TransferError {
        TransferError(status == nil ? .other : .httpStatus, errorClass: .permanent, status: status, reason)
    }

    /// A failure of an HLS download: which URL, which segment, which try.
    static func hls(
        _ kind: Kind, url: URL? = nil, segmentIndex: Int? = nil, rendition: String? = nil, httpStatus: Int? = nil,
        retryAfter: Duration? = nil, attempts: Int = 0, underlying: (any Error)? = nil, _ message: String
    ) -> TransferError {
        TransferError(
            kind, operation: .hlsDownload, url: url?.absoluteString, status: httpStatus,
            retryAfter: retryAfter.map { Double($0.components.seconds) }, segmentIndex: segmentIndex,
            rendition: rendition, attempts: attempts, underlying: underlying, message)
    }

    /// The task with `id` does not exist.
    public static func noTask(_ id: Int64) -> TransferError {
        TransferError(.notFound, taskID: id, "no transfer has id \(id); list them with `tuner transfers list`")
    }

    /// The operation `action` does not apply to the task in `state`.
    static func invalidState(id: Int64, state: TransferState, action: String, hint: String) -> TransferError {
        TransferError(
            .invalidState, taskID: id,
            "cannot \(action) transfer \(id) while it is \(state.rawValue)\(hint.isEmpty ? "" : "; \(hint)")")
    }

    /// The request is wrong: a bad URL, checksum or name.
    public static func invalidRequest(_ reason: String) -> TransferError {
        TransferError(.invalidRequest, reason)
    }

    /// The error for an HTTP status that is not a success.
    public static func classify(status: Int, retryAfter: TimeInterval? = nil) -> TransferError {
        switch TransferErrorClass(status: status) {
        case .needsNewURL:
            return TransferError(
                .httpStatus, status: status,
                "the server refused the link (HTTP \(status)); it may have expired: give the task a new URL")
        case .transient:
            return .transient("the server answered HTTP \(status)", retryAfter: retryAfter, status: status)
        case .permanent where status == 404 || status == 410:
            return .permanent("the server has no such file (HTTP \(status)); check the URL", status: status)
        case .permanent:
            return .permanent("the server answered HTTP \(status)", status: status)
        }
    }

    /// Classifies an error an executor did not classify itself: disk full is permanent, other
    /// I/O and network errors (timeouts, resets, refused connections) are transient.
    public static func classify(_ error: any Error) -> TransferError {
        if let error = error as? TransferError { return error }
        if let error = error as? POSIXError, error.code == .ENOSPC {
            return TransferError(.fileSystem, underlying: error, "the disk is full; free some space, then retry")
        }
        let text = String(describing: error)
        if text.contains("ENOSPC") || text.contains("No space left") {
            return TransferError(.fileSystem, underlying: error, "the disk is full; free some space, then retry")
        }
        return TransferError(.transport, underlying: error, "network or I/O error: \(text)")
    }

    /// Retry-After as seconds (`120`) or an HTTP date; nil when it is neither.
    public static func parseRetryAfter(_ value: String) -> TimeInterval? {
        RetryPolicy.parseRetryAfter(value, now: Date())
    }

    /// The reason alone for plain failures; for a failing step, the step, kind, class, segment,
    /// URL, status and tries before it, so a recorded task error says where it happened.
    public var description: String {
        guard let operation else { return reason }
        var text = "\(operation) failed (\(kind), \(errorClass.rawValue))"
        if let segmentIndex { text += " at \(rendition.map { $0 + " " } ?? "")segment \(segmentIndex)" }
        if let url { text += " for \(url)" }
        if let status { text += ": HTTP \(status)" }
        text += ": " + reason
        if attempts > 1 { text += " (after \(attempts) tries)" }
        if let retryAfter { text += " (retry after \(Int(retryAfter)) s)" }
        if errorClass == .needsNewURL { text += "; give the task a new URL" }
        if let underlying { text += " [\(String(describing: type(of: underlying))): \(underlying)]" }
        return text
    }
}
