/// The answer a command got the first time, kept so a resend with the same idempotency key is
/// answered the same way without acting again.
public struct CommandReceipt: Sendable, Hashable {
    /// The HTTP status of the first answer.
    public var status: Int
    /// Its `Content-Type`, if it had a body.
    public var contentType: String?
    /// Its body (at most ``CommandJournal/maxStoredBodySize`` bytes; a longer one is not kept,
    /// and the replay has no body).
    public var body: [UInt8]

    public init(status: Int, contentType: String?, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}
