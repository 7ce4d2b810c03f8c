/// The rows of API keys and browser sessions in one engine: what ``AccessControl`` reads and
/// writes, without its rules (secrets, scopes, lifetimes). Secrets arrive here already hashed.
///
/// Each call is one statement or one transaction and nothing is cached, so a key removed through
/// any ``AccessControl`` on the same database (another node, the CLI) is gone for every reader at
/// its next request.
protocol AccessRecords: Sendable {
    /// The key whose secret hashes to `secretHash`.
    func key(secretHash: String) async throws -> AccessKeyMatch?
    /// The session whose cookie hashes to `secretHash`, if it expires after `moment`, with its key
    /// (`keyID` nil: the owner's token signed it in).
    func session(secretHash: String, validAt moment: Double) async throws -> AccessSessionMatch?
    /// Stores a session, dropping those expired at `createdAt` in the same transaction.
    func insertSession(secretHash: String, keyID: Int64?, createdAt: Double, expiresAt: Double) async throws
    func removeSession(secretHash: String) async throws
    /// Stores a key and answers its id.
    func insertKey(name: String, scope: String, secretHash: String, hint: String, createdAt: Double) async throws
        -> Int64
    /// Every key, by id.
    func keys() async throws -> [AccessKeyRow]
    /// Removes a key and its sessions; false when there was none.
    func removeKey(id: Int64) async throws -> Bool
    func setLastUse(keyID: Int64, at moment: Double) async throws
}

/// A key found by its secret's hash.
struct AccessKeyMatch: Sendable, Hashable {
    var id: Int64
    var name: String
    var scope: String
}

/// A live session and the key it signed in with (all nil for the owner's token).
struct AccessSessionMatch: Sendable, Hashable {
    var keyID: Int64?
    var name: String?
    var scope: String?
}

/// A key as stored, never its secret.
struct AccessKeyRow: Sendable, Hashable {
    var id: Int64
    var name: String
    var scope: String
    var hint: String
    var createdAt: Double
    var lastUsedAt: Double?
}
