/// What ``CommandJournal/claim(key:fingerprint:caller:)`` decided for a request that carries an
/// idempotency key.
public enum CommandClaim: Sendable, Hashable {
    /// A new key: run the request, then ``CommandJournal/finish(_:with:)`` or
    /// ``CommandJournal/abandon(_:)`` it.
    case run(CommandTicket)
    /// The key was applied before: answer with this, do nothing.
    case replay(CommandReceipt)
    /// The key belongs to a different request (another method, path or body): refuse.
    case mismatch
    /// The same key is being applied right now (a resend raced the first attempt): try again soon.
    case inProgress
    /// The server stopped while the key was being applied: whether it took effect is unknown.
    case interrupted
}

/// A claimed key, to be finished with the request's answer.
public struct CommandTicket: Sendable, Hashable {
    public let caller: String
    public let key: String
}
