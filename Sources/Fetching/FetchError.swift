import Foundation
import MediaFormats

/// Why a fetch did not happen: a hop the ``FetchPolicy`` refuses, or a redirect that cannot be
/// followed. Never transient: trying again gives the same answer.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The policy (or the scheme rule) refused a hop.
        case refused
        /// A redirect to a Location that is not an http(s) URL, or more than ten of them.
        case badRedirect
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, url: URL, reason: String, policy: FetchPolicy? = nil) {
        self.kind = kind
        if let policy {
            description = policy.refusal(url.absoluteString, reason: reason)
        } else {
            description = "'\(SecretRedactor.redactURL(url.absoluteString))' was not fetched: \(reason)"
        }
    }

    init(_ kind: Kind, description: String) {
        self.kind = kind
        self.description = description
    }
}
