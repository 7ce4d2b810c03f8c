/// TunerApp's one error type: why a feature object (``Player``, ``Library``, ``Downloads``,
/// ``CacheAdmin``), a proxy URL, a local path, a playlist or the configuration was refused, with a
/// `kind` each front end turns into its own answer (HTTP status, exit message).
public struct FeatureError: Error, CustomStringConvertible, Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// What was named does not exist (HTTP 404).
        case notFound
        /// It exists but cannot do that (a series has no stream of its own; HTTP 409).
        case notPlayable
        /// The request, a link or a setting is malformed or out of range (HTTP 400).
        case invalid
        /// The request names something outside what Tuner may touch (a file outside the files
        /// root, a proxy URL this Tuner did not sign; HTTP 403).
        case forbidden
        /// It exists, but its state refuses the change (resuming a finished download; HTTP 409).
        case conflict
        /// The origin or provider failed or sent something unusable (HTTP 502).
        case upstream
        /// Tuner could not do it (the disk or the database failed; HTTP 500).
        case failed
        /// Not now: every connection the provider allows is in use, or a user's or profile's
        /// stream limit is reached (HTTP 503, with `Retry-After` when `retryAfterSeconds` is set).
        case busy
        /// No credentials, or wrong ones (HTTP 401, with `WWW-Authenticate` when `challenge` is set).
        case unauthenticated
        /// Too many wrong credentials from one address: refused before checking (HTTP 429 with
        /// `Retry-After`).
        case tooManyRequests
        /// The request's body is larger than what it may be (a logo over 1 MiB; HTTP 413).
        case tooLarge
        /// The state database cannot be reached now (a PostgreSQL server lost or restarting):
        /// HTTP 503 with `Retry-After` (``unavailableRetrySeconds``); Tuner reconnects by itself.
        case unavailable
    }

    /// The seconds a `busy` answer asks a client to wait before trying again.
    public static let busyRetrySeconds = 10
    /// The seconds an `unavailable` answer asks a client to wait: the pool reconnects within that.
    public static let unavailableRetrySeconds = 5

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String
    /// For `busy` and `tooManyRequests`: the seconds a client should wait before trying again.
    public let retryAfterSeconds: Int?
    /// For `unauthenticated`: the challenge naming the credentials to send, when there is one.
    public let challenge: String?

    /// An error of `kind`; a `busy` one asks to wait ``busyRetrySeconds``.
    public init(_ kind: Kind, _ description: String) {
        self.init(kind, description, retryAfterSeconds: kind == .busy ? Self.busyRetrySeconds : nil)
    }

    /// An error with its context: when to try again, and what credentials to send.
    public init(_ kind: Kind, _ description: String, retryAfterSeconds: Int?, challenge: String? = nil) {
        self.kind = kind
        self.description = description
        self.retryAfterSeconds = retryAfterSeconds
        self.challenge = challenge
    }

    /// A malformed request, link or setting.
    public static func invalid(_ description: String) -> FeatureError { FeatureError(.invalid, description) }
}
