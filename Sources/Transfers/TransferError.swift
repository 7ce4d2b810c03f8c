import Foundation

/// A failure of a transfer, classified so the manager knows whether to retry.
///
/// Executors throw this for every failure they understand; anything else they throw is
/// classified by ``classify(_:)``.
public struct TransferError: Error, Sendable, Hashable, CustomStringConvertible {
    public var errorClass: TransferErrorClass
    /// What failed and what to do, for people.
    public var reason: String
    /// The server's Retry-After, when it sent one.
    public var retryAfter: TimeInterval?
    /// The HTTP status, when the failure was one.
    public var status: Int?

    public init(_ errorClass: TransferErrorClass, _ reason: String, retryAfter: TimeInterval? = nil, status: Int? = nil)
    {
        self.errorClass = errorClass
        self.reason = reason
        self.retryAfter = retryAfter
        self.status = status
    }

    public var description: String { reason }

    public static func transient(_ reason: String, retryAfter: TimeInterval? = nil, status: Int? = nil) -> TransferError
    {
        TransferError(.transient, reason, retryAfter: retryAfter, status: status)
    }

    public static func permanent(_ reason: String, status: Int? = nil) -> TransferError {
        TransferError(.permanent, reason, status: status)
    }

    /// The class of an HTTP status that is not a success.
    public static func classify(status: Int, retryAfter: TimeInterval? = nil) -> TransferError {
        switch status {
        case 401, 403:
            return TransferError(
                .needsNewURL,
                "the server refused the link (HTTP \(status)); it may have expired: give the task a new URL",
                status: status)
        case 408, 429, 500...599:
            return .transient("the server answered HTTP \(status)", retryAfter: retryAfter, status: status)
        case 404, 410:
            return .permanent("the server has no such file (HTTP \(status)); check the URL", status: status)
        default:
            return .permanent("the server answered HTTP \(status)", status: status)
        }
    }

    /// Classifies an error an executor did not classify itself: disk full is permanent, other
    /// I/O and network errors (timeouts, resets, refused connections) are transient.
    public static func classify(_ error: any Error) -> TransferError {
        if let error = error as? TransferError { return error }
        if let error = error as? POSIXError, error.code == .ENOSPC {
            return .permanent("the disk is full; free some space, then retry")
        }
        let text = String(describing: error)
        if text.contains("ENOSPC") || text.contains("No space left") {
            return .permanent("the disk is full; free some space, then retry")
        }
        return .transient("network or I/O error: \(text)")
    }
}
