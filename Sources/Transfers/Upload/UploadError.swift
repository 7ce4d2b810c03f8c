import AsyncHTTPClient
import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

/// Why an upload request failed: which step, against which URL, with which HTTP status, and
/// whether trying again can help (``classification``), so a task manager can decide to retry,
/// give up, or ask for a new URL.
public struct UploadError: Error, Sendable, CustomStringConvertible {
    /// The step that failed.
    public struct Operation: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

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
        /// Reading the local file.
        public static let readFile = Operation(name: "read file")
    }

    /// What to do about the failure.
    public struct Classification: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

        /// Try again later (timeouts, resets, refused connections, 408, 409, 423, 429, 5xx); wait
        /// at least ``UploadError/retryAfter`` when the server said so.
        public static let transient = Classification(name: "transient")
        /// Trying again will fail the same way (404, 410, 413, 460, other 4xx, a missing local
        /// file, a server that does not speak tus).
        public static let permanent = Classification(name: "permanent")
        /// The URL or its credentials are no longer accepted (401, 403): get a new one.
        public static let needsNewURL = Classification(name: "needs new URL")
    }

    public let operation: Operation
    /// The URL of the failing request (or the local path for ``Operation/readFile``).
    public let url: String
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// The server's Retry-After, in seconds, when it sent one (429, 503).
    public let retryAfter: TimeInterval?
    /// The server's committed offset, when the failure told it (tus servers add Upload-Offset
    /// to 409 answers).
    public let serverOffset: Int64?
    public let classification: Classification
    /// What failed and what to do, in words.
    public let message: String

    public init(
        operation: Operation, url: String, status: Int? = nil, retryAfter: TimeInterval? = nil,
        serverOffset: Int64? = nil,
        classification: Classification, message: String
    ) {
        self.operation = operation
        self.url = url
        self.status = status
        self.retryAfter = retryAfter
        self.serverOffset = serverOffset
        self.classification = classification
        self.message = message
    }

    public var description: String {
        var text = "\(operation) \(url) failed"
        if let status { text += " with HTTP \(status)" }
        text += ": \(message) [\(classification)]"
        if let retryAfter { text += " (retry after \(Int(retryAfter)) s)" }
        return text
    }

    /// The classification of an HTTP status that is not a success.
    public static func classify(status: Int) -> Classification {
        switch status {
        case 401, 403: .needsNewURL
        case 408, 409, 423, 425, 429, 500...599: .transient
        default: .permanent
        }
    }

    /// A failure the server answered with `status`.
    static func http(
        _ operation: Operation, url: String, status: Int, headers: HTTPHeaders, body: ByteBuffer?, expected: String
    ) -> UploadError {
        let text = body.map { String(buffer: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let said = text.isEmpty ? "" : ": \(text.prefix(300))"
        return UploadError(
            operation: operation, url: url, status: status,
            retryAfter: headers.first(name: "Retry-After").flatMap(parseRetryAfter),
            serverOffset: headers.first(name: "Upload-Offset").flatMap { HeaderNumber.nonNegative($0) },
            classification: classify(status: status),
            message: "expected \(expected), the server answered \(status)\(said)")
    }

    /// A request that got no answer: refused, reset, timed out. Always transient.
    static func network(_ operation: Operation, url: String, error: any Error) -> UploadError {
        UploadError(
            operation: operation, url: url, classification: .transient,
            message: "no answer from the server (\(error)); try again later")
    }

    /// A server answer that makes no sense for the protocol (a missing header, say).
    static func protocolViolation(_ operation: Operation, url: String, status: Int?, _ message: String) -> UploadError {
        UploadError(operation: operation, url: url, status: status, classification: .permanent, message: message)
    }

    /// Retry-After as seconds (`120`) or an HTTP date; nil when it is neither.
    public static func parseRetryAfter(_ value: String) -> TimeInterval? {
        RetryPolicy.parseRetryAfter(value, now: Date())
    }
}
