import Crypto
import Foundation
import Synchronization

extension OutputStore {
    public func users() async throws -> [OutputUser] {
        try await records.users().map { try $0.user }
    }

    public func user(named name: String) async throws -> OutputUser? {
        try await records.user(named: name).map { try $0.user }
    }

    /// Stores a new login; its profiles must exist.
    public func insertUser(_ user: OutputUser, password: String) async throws {
        guard OutputUser.isValidName(user.username) else {
            throw OutputError(
                .invalid, "'\(user.username)' is not a username: use 1 to 64 of a-z, A-Z, 0-9, '.', '_', '-'")
        }
        let hash = try Self.checkedHash(password)
        try await checkProfiles(user.profileIDs)
        guard try await records.insertUser(OutputUserRow(user, password: hash)) else {
            throw OutputError(.conflict, "a user '\(user.username)' exists already; change it or pick another name")
        }
        logins.forget(user.username)
    }

    /// Changes a login's profiles and limit, and its password when one is given.
    /// Sets how live channels reach a login's player (one of ``OutputProfile/streamProfiles``).
    public func setStreamProfile(_ value: String, ofUser username: String) async throws {
        guard OutputProfile.streamProfiles.contains(value) else {
            throw OutputError(.invalid, "a stream profile is direct, remux or transcode")
        }
        try await records.setStreamProfile(value, ofUser: username)
    }

    /// Disables a login (it sees its account and nothing else), or enables it again.
    public func setDisabled(_ value: Bool, ofUser username: String) async throws {
        try await records.setDisabled(value, ofUser: username)
    }

    public func updateUser(_ user: OutputUser, password: String?) async throws {
        try await checkProfiles(user.profileIDs)
        let hash = try password.map(Self.checkedHash)
        let found = try await records.updateUser(
            named: user.username, profileIDs: try OutputUserRow.profileIDs(user),
            maxConnections: OutputUserRow.maxConnections(user), expiresAt: user.expiresAt, password: hash)
        guard found else {
            throw OutputError(.notFound, "no user is called '\(user.username)'; list them with `tuner users`")
        }
        logins.forget(user.username)
    }

    public func removeUser(named name: String) async throws {
        guard try await records.removeUser(named: name) else {
            throw OutputError(.notFound, "no user is called '\(name)'; list them with `tuner users`")
        }
        logins.forget(name)
    }

    /// The login `name` with `password`, or nil when either is wrong. The slow hash runs once per
    /// password: a login that matched is remembered (as a SHA-256 of salt and password), because
    /// players send the password with every request. An unknown name costs one hash with the same
    /// parameters as a real one, so the time of a refusal does not tell which names exist.
    /// Hashes run on ``passwordHashes``, in `client`'s turn (its address).
    public func authenticate(_ name: String, password: String, client: String) async throws -> OutputUser? {
        guard password.utf8.count <= 256 else { return nil }
        let row = OutputUser.isValidName(name) ? try await records.user(named: name) : nil
        let found: (OutputUser, PasswordHash)? = try row.map { (try $0.user, $0.password) }
        guard let (user, stored) = found else {
            _ = await passwordHashes.run(for: client) { Self.unknownUser.matches(password) }
            return nil
        }
        let quick = Data(SHA256.hash(data: stored.salt + Data(password.utf8)))
        if !logins.remembers(name, quick) {
            guard await passwordHashes.run(for: client, { stored.matches(password) }) else { return nil }
            logins.remember(name, quick)
        }
        return user
    }

    /// What an unknown name is checked against: random, with a real hash's parameters.
    static let unknownUser: PasswordHash = {
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> Data {
            Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        return PasswordHash(hash: random(32), salt: random(16), rounds: PasswordHash.defaultRounds)
    }()

    func checkProfiles(_ ids: [String]) async throws {
        guard !ids.isEmpty else { throw OutputError(.invalid, "a user needs at least one profile") }
        let known = Set(try await profiles().map(\.id))
        if let unknown = ids.first(where: { !known.contains($0) }) {
            throw OutputError(.invalid, "no output profile is called '\(unknown)'; list them with `tuner outputs`")
        }
    }

    static func checkedHash(_ password: String) throws -> PasswordHash {
        guard (8...256).contains(password.utf8.count) else {
            throw OutputError(.invalid, "a password must have 8 to 256 bytes")
        }
        guard !password.contains("/") && !password.contains("?") && !password.contains("#") else {
            // It travels in stream paths (/live/USER/PASS/ID.ts), where these would break the URL.
            throw OutputError(.invalid, "a password cannot contain '/', '?' or '#'")
        }
        return try PasswordHash.make(password)
    }

}

/// Logins that matched their slow hash, remembered by a quick one until the user changes.
final class VerifiedLogins: Sendable {
    private let verified = Mutex<[String: Data]>([:])

    func remembers(_ name: String, _ quick: Data) -> Bool {
        verified.withLock { known in
            guard let stored = known[name] else { return false }
            return PasswordHash.constantTimeEquals(Array(stored), Array(quick))
        }
    }

    func remember(_ name: String, _ quick: Data) {
        verified.withLock { known in
            // A bound, so names tried with right passwords cannot grow it without end.
            if known.count > 10_000 { known.removeAll() }
            known[name] = quick
        }
    }

    func forget(_ name: String) {
        _ = verified.withLock { $0.removeValue(forKey: name) }
    }
}
