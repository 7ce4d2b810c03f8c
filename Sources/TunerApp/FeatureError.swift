/// Why a feature object (``Player``, ``Library``, ``Downloads``, ``CacheAdmin``) refused a request: one error type for
/// all of
/// them, with a `kind` each front end turns into its own answer (HTTP status, exit message).
public struct FeatureError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// What was named does not exist (HTTP 404).
        case notFound
        /// It exists but cannot do that (a series has no stream of its own; HTTP 409).
        case notPlayable
        /// The request is malformed or out of range (HTTP 400).
        case invalid
        /// The request names something outside what Tuner may touch (a file outside the files
        /// root; HTTP 403).
        case forbidden
        /// It exists, but its state refuses the change (resuming a finished download; HTTP 409).
        case conflict
        /// Tuner could not do it (the disk or the database failed; HTTP 500).
        case failed
    }

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
