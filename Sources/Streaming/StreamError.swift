/// Why the stream engine refused a link or a playlist: a link that cannot be proxied, a proxy URL
/// this Tuner did not sign, an origin that sent no usable playlist. TunerApp turns the `kind` into
/// its `FeatureError` in one place, so the front ends answer it as before.
public struct StreamError: Error, CustomStringConvertible, Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A link, a header or a proxy URL is malformed (HTTP 400).
        case invalid
        /// The URL is outside what Tuner may fetch, or the proxy URL was not signed by this
        /// Tuner (HTTP 403).
        case forbidden
        /// The origin failed or sent something that is not a usable playlist (HTTP 502).
        case upstream
    }

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// A malformed link, header or proxy URL.
    public static func invalid(_ description: String) -> StreamError { StreamError(.invalid, description) }

    /// A proxy URL whose signature does not match: it was not made by this Tuner.
    public static let badSignature = StreamError(
        .forbidden, "the proxy URL's signature is not valid for this Tuner; ask the API for a new proxy URL")
}
