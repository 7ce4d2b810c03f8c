/// Why ``ServerLink`` could not deliver a command: what was sent, where, and whether it waits in
/// the outbox to be sent again.
public struct ServerLinkError: Error, CustomStringConvertible, Sendable {
    /// What failed. A struct with static members, so new kinds never break a caller's `switch`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

        /// No answer came back after every retry.
        public static let undelivered = Kind(name: "undelivered")
    }

    public let kind: Kind
    /// What failed and what to do.
    public let description: String
    /// The command's HTTP method.
    public let method: String
    /// The command's path and query on the server.
    public let target: String
    /// True when the command waits in the outbox, to be sent again with the same key.
    public let isKept: Bool

    /// No answer came back after every retry; `kept` says it waits in the outbox.
    public static func undelivered(method: String, target: String, kept: Bool, reason: String) -> ServerLinkError {
        let what = "\(method) \(target) got no answer from the server (\(reason))"
        return ServerLinkError(
            kind: .undelivered,
            description: kept
                ? what
                    + "; it is kept and sent again, with the same key, by the next tuner command that "
                    + "reaches the server"
                : what + "; check the server and try again",
            method: method, target: target, isKept: kept)
    }
}
