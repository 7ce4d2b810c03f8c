import Logging
import PostgresNIO
import TunerStorage

/// ``AccessRecords`` in a PostgreSQL database that several nodes share (``AccessSchema``).
struct PostgresAccessRecords: AccessRecords {
    let database: TunerPostgres
    let logger: Logger

    func key(secretHash: String) async throws -> AccessKeyMatch? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                "SELECT id, name, scope FROM apiKey WHERE secretHash = \(secretHash)", logger: logger)
            var found: AccessKeyMatch?
            for try await (id, name, scope) in rows.decode((Int64, String, String).self) {
                found = AccessKeyMatch(id: id, name: name, scope: scope)
            }
            return found
        }
    }

    func session(secretHash: String, validAt moment: Double) async throws -> AccessSessionMatch? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT webSession.keyID, apiKey.name, apiKey.scope FROM webSession
                LEFT JOIN apiKey ON apiKey.id = webSession.keyID
                WHERE webSession.secretHash = \(secretHash) AND webSession.expiresAt > \(moment)
                """, logger: logger)
            var found: AccessSessionMatch?
            for try await (keyID, name, scope) in rows.decode((Int64?, String?, String?).self) {
                found = AccessSessionMatch(keyID: keyID, name: name, scope: scope)
            }
            return found
        }
    }

    func insertSession(secretHash: String, keyID: Int64?, createdAt: Double, expiresAt: Double) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query("DELETE FROM webSession WHERE expiresAt <= \(createdAt)", logger: logger)
            try await connection.query(
                """
                INSERT INTO webSession (secretHash, keyID, createdAt, expiresAt)
                VALUES (\(secretHash), \(keyID), \(createdAt), \(expiresAt))
                """, logger: logger)
        }
    }

    func removeSession(secretHash: String) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query("DELETE FROM webSession WHERE secretHash = \(secretHash)", logger: logger)
        }
    }

    func insertKey(name: String, scope: String, secretHash: String, hint: String, createdAt: Double) async throws
        -> Int64
    {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                INSERT INTO apiKey (name, scope, secretHash, hint, createdAt)
                VALUES (\(name), \(scope), \(secretHash), \(hint), \(createdAt)) RETURNING id
                """, logger: logger)
            var id: Int64?
            for try await value in rows.decode(Int64.self) { id = value }
            guard let id else { throw PostgresAccessError("the new key's row came back without an id") }
            return id
        }
    }

    func keys() async throws -> [AccessKeyRow] {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                "SELECT id, name, scope, hint, createdAt, lastUsedAt FROM apiKey ORDER BY id", logger: logger)
            var keys: [AccessKeyRow] = []
            for try await (id, name, scope, hint, createdAt, lastUsedAt) in rows.decode(
                (Int64, String, String, String, Double, Double?).self)
            {
                keys.append(
                    AccessKeyRow(
                        id: id, name: name, scope: scope, hint: hint, createdAt: createdAt, lastUsedAt: lastUsedAt))
            }
            return keys
        }
    }

    func removeKey(id: Int64) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query("DELETE FROM apiKey WHERE id = \(id) RETURNING id", logger: logger)
            return try await !rows.collect().isEmpty
        }
    }

    func setLastUse(keyID: Int64, at moment: Double) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE apiKey SET lastUsedAt = \(moment) WHERE id = \(keyID)", logger: logger)
        }
    }
}

/// PostgreSQL answered something the access tables cannot hold.
struct PostgresAccessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
