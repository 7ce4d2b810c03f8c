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
        /// stream limit is reached (HTTP 503 with `Retry-After`).
        case busy
    }

    /// The seconds a `busy` answer asks a client to wait before trying again.
    public static let busyRetrySeconds = 10

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// A malformed request, link or setting.
    public static func invalid(_ description: String) -> FeatureError { FeatureError(.invalid, description) }

    /// A proxy URL whose signature does not match: it was not made by this Tuner.
    public static let badSignature = FeatureError(
        .forbidden, "the proxy URL's signature is not valid for this Tuner; ask the API for a new proxy URL")
}
