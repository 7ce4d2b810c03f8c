/// How a failure should be handled.
public enum TransferErrorClass: String, Codable, Sendable {
    /// Worth retrying after a backoff: timeouts, resets, stalls, 408, 429, 5xx.
    case transient
    /// Retrying cannot help: 404, 410, disk full, checksum mismatch, bad input.
    case permanent
    /// The link was refused (401, 403), usually because it expired: give the task a new URL.
    case needsNewURL = "needs-new-url"
}
