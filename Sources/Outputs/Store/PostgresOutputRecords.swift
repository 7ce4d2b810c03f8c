import Foundation
import Logging
import PostgresNIO
import TunerStorage

/// ``OutputRecords`` in a PostgreSQL database that several nodes share (``OutputSchema``).
///
/// Text is ordered `COLLATE "C"` (by code point), as SQLite's default `BINARY` does, so lists come
/// in the same order from both engines whatever the database's locale. Inserts that may race with
/// another node use `ON CONFLICT … DO NOTHING`, so the loser learns it lost instead of failing.
struct PostgresOutputRecords: OutputRecords {
    let database: TunerPostgres
    let logger: Logger

    // MARK: Profiles

    func profiles() async throws -> [OutputProfileRow] {
        let logger = logger
        return try await database.read { connection in
            try await Self.profiles(
                connection.query(
                    """
                    SELECT id, name, selection, numbering, renames, edits, deviceID, accessKey, streamLimit,
                        streamProfile, createdAt
                    FROM outputProfile ORDER BY createdAt, id COLLATE "C"
                    """, logger: logger))
        }
    }

    func profile(id: String) async throws -> OutputProfileRow? {
        let logger = logger
        return try await database.read { connection in
            try await Self.profiles(
                connection.query(
                    """
                    SELECT id, name, selection, numbering, renames, edits, deviceID, accessKey, streamLimit,
                        streamProfile, createdAt
                    FROM outputProfile WHERE id = \(id)
                    """, logger: logger)
            ).first
        }
    }

    func insertProfile(_ row: OutputProfileRow) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                INSERT INTO outputProfile (id, name, selection, numbering, renames, edits, deviceID, accessKey,
                    streamLimit, createdAt)
                VALUES (\(row.id), \(row.name), \(row.selection), \(row.numbering), \(row.renames), \(row.edits),
                    \(row.deviceID), \(row.accessKey), \(row.streamLimit), \(row.createdAt))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    func updateProfileSettings(_ row: OutputProfileRow) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            try await Self.updateSettings(row, on: connection, logger: logger)
        }
    }

    static func updateSettings(_ row: OutputProfileRow, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool
    {
        let rows = try await connection.query(
            """
            UPDATE outputProfile SET name = \(row.name), selection = \(row.selection),
                numbering = \(row.numbering), renames = \(row.renames), edits = \(row.edits),
                streamLimit = \(row.streamLimit)
            WHERE id = \(row.id) RETURNING id
            """, logger: logger)
        return try await !rows.collect().isEmpty
    }

    func setStreamProfile(_ value: String, ofProfile id: String) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE outputProfile SET streamProfile = \(value) WHERE id = \(id)", logger: logger)
        }
    }

    func removeProfile(id: String) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                "DELETE FROM outputProfile WHERE id = \(id) RETURNING id", logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    // MARK: Numbers

    func numbers(profileID: String) async throws -> [OutputChannelKey: Int] {
        let logger = logger
        return try await database.read { connection in
            try await Self.numbers(profileID: profileID, on: connection, logger: logger)
        }
    }

    static func numbers(profileID: String, on connection: PostgresConnection, logger: Logger)
        async throws -> [OutputChannelKey: Int]
    {
        let rows = try await connection.query(
            "SELECT kind, identity, number FROM outputNumber WHERE profileID = \(profileID)", logger: logger)
        var numbers: [OutputChannelKey: Int] = [:]
        for try await (kind, identity, number) in rows.decode((String, String, Int).self) {
            numbers[OutputChannelKey(kind: kind, identity: identity)] = number
        }
        return numbers
    }

    func changeLineup(
        profileID: String,
        _ change: @escaping @Sendable (OutputProfileRow, [OutputChannelKey: Int]) throws -> LineupRows
    ) async throws -> OutputProfileRow? {
        let logger = logger
        return try await database.write { connection in
            // The row lock keeps another node's change of this profile waiting until this one commits.
            guard
                let row = try await Self.profiles(
                    connection.query(
                        """
                        SELECT id, name, selection, numbering, renames, edits, deviceID, accessKey, streamLimit,
                            streamProfile, createdAt
                        FROM outputProfile WHERE id = \(profileID) FOR UPDATE
                        """, logger: logger)
                ).first
            else { return nil }
            let old = try await Self.numbers(profileID: profileID, on: connection, logger: logger)
            let new = try change(row, old)
            _ = try await Self.updateSettings(new.profile, on: connection, logger: logger)
            let (removed, added) = new.changes(from: old)
            if !removed.isEmpty {
                _ = try await connection.query(
                    """
                    DELETE FROM outputNumber n
                    USING unnest(\(removed.map(\.kind))::text[], \(removed.map(\.identity))::text[]) AS t (k, i)
                    WHERE n.profileID = \(profileID) AND n.kind = t.k AND n.identity = t.i
                    """, logger: logger)
            }
            if !added.isEmpty {
                let keys = Array(added.keys)
                _ = try await connection.query(
                    """
                    INSERT INTO outputNumber (profileID, kind, identity, number)
                    SELECT \(profileID), k, i, n
                    FROM unnest(\(keys.map(\.kind))::text[], \(keys.map(\.identity))::text[],
                        \(keys.map { Int64(added[$0] ?? 0) })::bigint[]) AS t (k, i, n)
                    """, logger: logger)
            }
            return new.profile
        }
    }

    func addNumbers(_ numbers: [OutputChannelKey: Int], profileID: String) async throws {
        guard !numbers.isEmpty else { return }
        var kinds: [String] = []
        var identities: [String] = []
        var values: [Int64] = []
        kinds.reserveCapacity(numbers.count)
        identities.reserveCapacity(numbers.count)
        values.reserveCapacity(numbers.count)
        for (key, number) in numbers {
            kinds.append(key.kind)
            identities.append(key.identity)
            values.append(Int64(number))
        }
        let logger = logger
        // One statement over three arrays: four parameters whatever the lineup's size.
        try await database.write { [kinds, identities, values] connection in
            _ = try await connection.query(
                """
                INSERT INTO outputNumber (profileID, kind, identity, number)
                SELECT \(profileID), k, i, n
                FROM unnest(\(kinds)::text[], \(identities)::text[], \(values)::bigint[]) AS t (k, i, n)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    // MARK: Logos

    func insertLogo(name: String, bytes: [UInt8], createdAt: Double) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                INSERT INTO outputLogo (name, bytes, createdAt) VALUES (\(name), \(Data(bytes)), \(createdAt))
                ON CONFLICT (name) DO NOTHING RETURNING name
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    func logo(name: String) async throws -> [UInt8]? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query("SELECT bytes FROM outputLogo WHERE name = \(name)", logger: logger)
            for try await bytes in rows.decode(Data.self) { return Array(bytes) }
            return nil
        }
    }

    // MARK: Users

    func users() async throws -> [OutputUserRow] {
        let logger = logger
        return try await database.read { connection in
            try await Self.users(
                connection.query(
                    """
                    SELECT username, passwordHash, salt, rounds, profileIDs, maxConnections, streamProfile, createdAt,
                        expiresAt, disabled
                    FROM outputUser ORDER BY username COLLATE "C"
                    """, logger: logger))
        }
    }

    func user(named name: String) async throws -> OutputUserRow? {
        let logger = logger
        return try await database.read { connection in
            try await Self.users(
                connection.query(
                    """
                    SELECT username, passwordHash, salt, rounds, profileIDs, maxConnections, streamProfile, createdAt,
                        expiresAt, disabled
                    FROM outputUser WHERE username = \(name)
                    """, logger: logger)
            ).first
        }
    }

    func insertUser(_ row: OutputUserRow) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                INSERT INTO outputUser (
                    username, passwordHash, salt, rounds, profileIDs, maxConnections, createdAt, expiresAt)
                VALUES (\(row.username), \(row.password.hash), \(row.password.salt), \(row.password.rounds),
                    \(row.profileIDs), \(row.maxConnections), \(row.createdAt), \(row.expiresAt))
                ON CONFLICT (username) DO NOTHING RETURNING username
                """, logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    func setStreamProfile(_ value: String, ofUser username: String) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE outputUser SET streamProfile = \(value) WHERE username = \(username)", logger: logger)
        }
    }

    func setDisabled(_ value: Bool, ofUser username: String) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE outputUser SET disabled = \(value ? 1 : 0) WHERE username = \(username)", logger: logger)
        }
    }

    func updateUser(
        named username: String, profileIDs: String, maxConnections: Int, expiresAt: Int64?, password: PasswordHash?
    ) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                UPDATE outputUser SET profileIDs = \(profileIDs), maxConnections = \(maxConnections),
                    expiresAt = \(expiresAt)
                WHERE username = \(username) RETURNING username
                """, logger: logger)
            guard try await !rows.collect().isEmpty else { return false }
            if let password {
                try await connection.query(
                    """
                    UPDATE outputUser SET passwordHash = \(password.hash), salt = \(password.salt),
                        rounds = \(password.rounds)
                    WHERE username = \(username)
                    """, logger: logger)
            }
            return true
        }
    }

    func removeUser(named name: String) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                "DELETE FROM outputUser WHERE username = \(name) RETURNING username", logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    // MARK: Rows

    private static func profiles(_ rows: PostgresRowSequence) async throws -> [OutputProfileRow] {
        var profiles: [OutputProfileRow] = []
        for try await (
            id, name, selection, numbering, renames, edits, deviceID, accessKey, limit, streamProfile, createdAt
        ) in rows.decode((String, String, String, String, String, String, Int64, String, Int, String, Double).self) {
            profiles.append(
                OutputProfileRow(
                    id: id, name: name, selection: selection, numbering: numbering, renames: renames, edits: edits,
                    deviceID: deviceID, accessKey: accessKey, streamLimit: limit, streamProfile: streamProfile,
                    createdAt: createdAt))
        }
        return profiles
    }

    private static func users(_ rows: PostgresRowSequence) async throws -> [OutputUserRow] {
        var users: [OutputUserRow] = []
        for try await (
            username, hash, salt, rounds, profileIDs, maxConnections, streamProfile, createdAt, expiresAt, disabled
        ) in rows.decode((String, Data, Data, Int, String, Int, String, Double, Int64?, Int64).self) {
            users.append(
                OutputUserRow(
                    username: username, password: PasswordHash(hash: hash, salt: salt, rounds: rounds),
                    profileIDs: profileIDs, maxConnections: maxConnections, streamProfile: streamProfile,
                    createdAt: createdAt, expiresAt: expiresAt, disabled: disabled == 1))
        }
        return users
    }
}
