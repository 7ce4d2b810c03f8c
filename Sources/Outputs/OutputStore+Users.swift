import Crypto
import Foundation
import GRDB
import Synchronization

extension OutputStore {
    public func users() async throws -> [OutputUser] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outputUser ORDER BY username").map(Self.user(from:))
        }
    }

    public func user(named name: String) async throws -> OutputUser? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outputUser WHERE username = ?", arguments: [name])
                .map(Self.user(from:))
        }
    }

    /// Stores a new login; its profiles must exist.
    public func insertUser(_ user: OutputUser, password: String) async throws {
        guard OutputUser.isValidName(user.username) else {
            throw OutputError(
                .invalid, "'\(user.username)' is not a username: use 1 to 64 of a-z, A-Z, 0-9, '.', '_', '-'")
        }
        let hash = try Self.checkedHash(password)
        try await checkProfiles(user.profileIDs)
        try await database.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM outputUser WHERE username = ?", arguments: [user.username])
                == true
            {
                throw OutputError(.conflict, "a user '\(user.username)' exists already; change it or pick another name")
            }
            try db.execute(
                sql: """
                    INSERT INTO outputUser (username, passwordHash, salt, rounds, profileIDs, maxConnections, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user.username, hash.hash, hash.salt, hash.rounds, try Self.json(user.profileIDs),
                    min(max(user.maxConnections, 1), 64), user.createdAt.timeIntervalSince1970,
                ])
        }
        logins.forget(user.username)
    }

    /// Changes a login's profiles and limit, and its password when one is given.
    /// Sets how live channels reach a login's player (one of ``OutputProfile/streamProfiles``).
    public func setStreamProfile(_ value: String, ofUser username: String) async throws {
        guard OutputProfile.streamProfiles.contains(value) else {
            throw OutputError(.invalid, "a stream profile is direct, remux or transcode")
        }
        try await database.write { db in
            try db.execute(
                sql: "UPDATE outputUser SET streamProfile = ? WHERE username = ?", arguments: [value, username])
        }
    }

    public func updateUser(_ user: OutputUser, password: String?) async throws {
        try await checkProfiles(user.profileIDs)
        let hash = try password.map(Self.checkedHash)
        try await database.write { db in
            try db.execute(
                sql: "UPDATE outputUser SET profileIDs = ?, maxConnections = ? WHERE username = ?",
                arguments: [try Self.json(user.profileIDs), min(max(user.maxConnections, 1), 64), user.username])
            guard db.changesCount > 0 else {
                throw OutputError(.notFound, "no user is called '\(user.username)'; list them with `tuner users`")
            }
            if let hash {
                try db.execute(
                    sql: "UPDATE outputUser SET passwordHash = ?, salt = ?, rounds = ? WHERE username = ?",
                    arguments: [hash.hash, hash.salt, hash.rounds, user.username])
            }
        }
        logins.forget(user.username)
    }

    public func removeUser(named name: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM outputUser WHERE username = ?", arguments: [name])
            guard db.changesCount > 0 else {
                throw OutputError(.notFound, "no user is called '\(name)'; list them with `tuner users`")
            }
        }
        logins.forget(name)
    }

    /// The login `name` with `password`, or nil when either is wrong. The slow hash runs once per
    /// password: a login that matched is remembered (as a SHA-256 of salt and password), because
    /// players send the password with every request.
    public func authenticate(_ name: String, password: String) async throws -> OutputUser? {
        guard OutputUser.isValidName(name), password.utf8.count <= 256 else { return nil }
        let found: (OutputUser, PasswordHash)? = try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outputUser WHERE username = ?", arguments: [name])
            else { return nil }
            return (
                try Self.user(from: row),
                PasswordHash(hash: row["passwordHash"], salt: row["salt"], rounds: row["rounds"])
            )
        }
        guard let (user, stored) = found else { return nil }
        let quick = Data(SHA256.hash(data: stored.salt + Data(password.utf8)))
        if !logins.remembers(name, quick) {
            // One slow hash at a time: a flood of wrong passwords for a real username then costs
            // one core at most, never the streams' threads all at once.
            await slowHashes.acquire()
            let matches = stored.matches(password)
            slowHashes.release()
            guard matches else { return nil }
            logins.remember(name, quick)
        }
        return user
    }

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

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func user(from row: Row) throws -> OutputUser {
        let profiles: String = row["profileIDs"]
        var user = OutputUser(
            username: row["username"],
            profileIDs: try JSONDecoder().decode([String].self, from: Data(profiles.utf8)),
            maxConnections: row["maxConnections"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
        user.streamProfile = row["streamProfile"] ?? "direct"
        return user
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

/// A counting gate for slow work: `acquire` waits while `limit` holders are inside.
final class SlowWorkGate: Sendable {
    private struct State {
        var inside = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.inside < limit {
                    state.inside += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            // The place passes straight to the next waiter, if any.
            if state.waiting.isEmpty {
                state.inside -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
