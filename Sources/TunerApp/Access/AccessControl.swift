import Crypto
import Foundation
import Logging
import Outputs
import Streaming
import Synchronization
import TunerStorage

/// API keys with scopes, and the browser sessions they (or the owner's token) sign in to: who a
/// request acts as, for the HTTP layer, the CLI (`tuner keys`) and the web app's sign-in.
///
/// Keys and sessions live in the state database (``AccessSchema``, SQLite or PostgreSQL) and are
/// looked up there on each request, never cached, so a key removed by the CLI beside a running
/// server, or on another node sharing the PostgreSQL database, stops working at once. Secrets are
/// 256-bit random and stored only as SHA-256 hashes; the owner's token is compared in constant
/// time.
public final class AccessControl: Sendable {
    /// Every key starts so, to tell it from the owner's token (and to be found by secret scanners).
    public static let keyPrefix = "tuner_"
    /// The browser session cookie's name.
    public static let sessionCookie = "tuner_session"
    /// How long a browser stays signed in.
    public static let sessionLifetime: TimeInterval = 30 * 86_400

    private let records: any AccessRecords
    private let ownerToken: String?
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// When each key's `lastUsedAt` was last written: at most once a minute, so using a key is
    /// a read, not a write, per request.
    private let lastUseWritten = Mutex<[Int64: Date]>([:])

    /// `ownerToken`: the access token (nil when Tuner listens on loopback only and has none).
    public init(
        database: StateDatabase, ownerToken: String?, logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        switch database {
        case .sqlite(let database): records = SQLiteAccessRecords(database: database.writer)
        case .postgres(let database): records = PostgresAccessRecords(database: database, logger: logger)
        }
        self.ownerToken = ownerToken
        self.logger = logger
        self.now = now
    }

    /// Keys and sessions in a SQLite file.
    public convenience init(
        database: TunerDatabase, ownerToken: String?, logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(database: .sqlite(database), ownerToken: ownerToken, logger: logger, now: now)
    }

    // MARK: Credentials

    /// Who `secret` (the owner's token, or an API key) is, or nil when it is neither. Throws
    /// ``StorageUnavailableError`` when the database cannot answer now (the API says 503 with
    /// `Retry-After`, not that the key is wrong); other failures are logged and answer nil.
    public func principal(bearer secret: String) async throws -> AccessPrincipal? {
        if let ownerToken, Self.constantTimeEquals(secret, ownerToken) { return .owner }
        guard secret.hasPrefix(Self.keyPrefix) else { return nil }
        let hash = Self.hash(secret)
        let found: AccessKeyMatch?
        do {
            found = try await records.key(secretHash: hash)
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            logger.error("could not look up an API key", metadata: ["error": "\(error)"])
            return nil
        }
        guard let row = found, let scope = AccessScope(rawValue: row.scope) else { return nil }
        let principal = AccessPrincipal(scope: scope, keyID: row.id, name: row.name)
        await noteUse(of: row.id)
        return principal
    }

    /// Who the browser holding session cookie `value` is, or nil (unknown or expired). Throws
    /// ``StorageUnavailableError`` as ``principal(bearer:)`` does.
    public func principal(session value: String) async throws -> AccessPrincipal? {
        let hash = Self.hash(value)
        let moment = now().timeIntervalSince1970
        let found: AccessSessionMatch?
        do {
            found = try await records.session(secretHash: hash, validAt: moment)
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            logger.error("could not look up a browser session", metadata: ["error": "\(error)"])
            return nil
        }
        guard let row = found else { return nil }
        guard let keyID = row.keyID else { return .owner }
        guard let scope = AccessScope(rawValue: row.scope ?? "") else { return nil }
        await noteUse(of: keyID)
        return AccessPrincipal(scope: scope, keyID: keyID, name: row.name ?? "")
    }

    /// Signs a browser in with the owner's token or an API key: the new session's cookie value
    /// (shown to nobody else) and who it is. Throws `forbidden` for anything else.
    public func signIn(secret: String) async throws -> (cookie: String, principal: AccessPrincipal) {
        guard let principal = try await principal(bearer: secret) else {
            throw FeatureError(
                .forbidden,
                "that is neither the access token nor an API key of this Tuner: check it, or make a key with "
                    + "`tuner keys add`")
        }
        let cookie = Self.randomSecret()
        let moment = now().timeIntervalSince1970
        do {
            try await records.insertSession(
                secretHash: Self.hash(cookie), keyID: principal.keyID, createdAt: moment,
                expiresAt: moment + Self.sessionLifetime)
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            throw FeatureError(.failed, "could not record the sign-in: \(error)")
        }
        return (cookie, principal)
    }

    /// Ends the session of cookie `value` (nothing when there is none).
    public func signOut(session value: String) async {
        let hash = Self.hash(value)
        try? await records.removeSession(secretHash: hash)
    }

    // MARK: Keys

    /// Makes a key: its record, and its secret, which is shown this once.
    public func addKey(name: String, scope: AccessScope) async throws -> NewAPIKey {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else {
            throw FeatureError.invalid("a key's name is 1 to 64 printable characters, like 'living-room-tv'")
        }
        let secret = Self.keyPrefix + Self.randomSecret()
        let hint = String(secret.prefix(Self.keyPrefix.count + 4)) + "…"
        let created = now()
        do {
            let id = try await records.insertKey(
                name: name, scope: scope.rawValue, secretHash: Self.hash(secret), hint: hint,
                createdAt: created.timeIntervalSince1970)
            return NewAPIKey(
                key: APIKey(id: id, name: name, scope: scope, hint: hint, createdAt: created, lastUsedAt: nil),
                secret: secret)
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            throw FeatureError(.failed, "could not store the new key: \(error)")
        }
    }

    /// Every key, oldest first (never their secrets).
    public func keys() async throws -> [APIKey] {
        do {
            return try await records.keys().map { row in
                APIKey(
                    id: row.id, name: row.name, scope: AccessScope(rawValue: row.scope) ?? .read, hint: row.hint,
                    createdAt: Date(timeIntervalSince1970: row.createdAt),
                    lastUsedAt: row.lastUsedAt.map(Date.init(timeIntervalSince1970:)))
            }
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            throw FeatureError(.failed, "could not read the keys: \(error)")
        }
    }

    /// Removes a key; its browsers are signed out with it.
    public func removeKey(id: Int64) async throws {
        let removed: Bool
        do {
            removed = try await records.removeKey(id: id)
        } catch let error as StorageUnavailableError {
            throw error
        } catch {
            throw FeatureError(.failed, "could not remove the key: \(error)")
        }
        guard removed else { throw FeatureError(.notFound, "there is no key \(id): see `tuner keys list`") }
    }

    // MARK: Helpers

    private func noteUse(of keyID: Int64) async {
        let moment = now()
        let due = lastUseWritten.withLock { written in
            guard written[keyID].map({ moment.timeIntervalSince($0) >= 60 }) ?? true else { return false }
            written[keyID] = moment
            return true
        }
        guard due else { return }
        try? await records.setLastUse(keyID: keyID, at: moment.timeIntervalSince1970)
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// 256 random bits, base64url.
    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }

    /// Compares without an early exit, so response times do not reveal how much of a guess matched
    /// (`PasswordHash.constantTimeEquals` on the UTF-8 bytes: one comparison for every secret).
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        PasswordHash.constantTimeEquals(Array(a.utf8), Array(b.utf8))
    }
}
