/// Why a live session could not be opened, joined or changed. TunerApp turns the `kind` into its
/// `FeatureError` in one place, so the front ends answer it as before.
public struct LiveError: Error, CustomStringConvertible, Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// No channel or session with that id (HTTP 404).
        case notFound
        /// It exists but cannot be played live (a film, a channel without a stream; HTTP 409).
        case notPlayable
        /// The request is malformed or out of range (HTTP 400).
        case invalid
        /// Tuner could not do it (the catalog could not be read, the server is stopping; HTTP 500).
        case failed
        /// Not now: every connection the provider allows is in use, or a user's or profile's
        /// stream limit is reached (HTTP 503 with `Retry-After`).
        case busy
    }

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String
    /// The channel the request named, when there was one.
    public let channelID: Int64?

    public init(_ kind: Kind, _ description: String, channelID: Int64? = nil) {
        self.kind = kind
        self.description = description
        self.channelID = channelID
    }
}
