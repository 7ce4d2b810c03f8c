/// How a failure should be handled.
public enum TransferErrorClass: String, Codable, Sendable {
    /// Worth retrying after a backoff: timeouts, resets, stalls, 408, 409, 423, 425, 429, 5xx.
    case transient
    /// Retrying cannot help: 404, 410, other 4xx, disk full, checksum mismatch, bad input.
    case permanent
    /// The link was refused (401, 403), usually because it expired: give the task a new URL.
    case needsNewURL = "needs-new-url"

    /// The class of an HTTP status that is not a success: 401 and 403 need a new URL; 408, 409
    /// (a tus offset that moved), 423, 425, 429 and 5xx are transient; every other is permanent.
    public init(status: Int) {
        switch status {
        case 401, 403: self = .needsNewURL
        case 408, 409, 423, 425, 429, 500...599: self = .transient
        default: self = .permanent
        }
    }
}
