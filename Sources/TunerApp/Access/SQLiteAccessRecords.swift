import GRDB

/// ``AccessRecords`` in the data folder's SQLite file (``AccessSchema``).
struct SQLiteAccessRecords: AccessRecords {
    let database: any DatabaseWriter

    func key(secretHash: String) async throws -> AccessKeyMatch? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT id, name, scope FROM apiKey WHERE secretHash = ?", arguments: [secretHash]
            ).map { AccessKeyMatch(id: $0["id"], name: $0["name"], scope: $0["scope"]) }
        }
    }

    func session(secretHash: String, validAt moment: Double) async throws -> AccessSessionMatch? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT webSession.keyID, apiKey.name, apiKey.scope FROM webSession
                    LEFT JOIN apiKey ON apiKey.id = webSession.keyID
                    WHERE webSession.secretHash = ? AND webSession.expiresAt > ?
                    """,
                arguments: [secretHash, moment]
            ).map { AccessSessionMatch(keyID: $0["keyID"], name: $0["name"], scope: $0["scope"]) }
        }
    }

    func insertSession(secretHash: String, keyID: Int64?, createdAt: Double, expiresAt: Double) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM webSession WHERE expiresAt <= ?", arguments: [createdAt])
            try db.execute(
                sql: "INSERT INTO webSession (secretHash, keyID, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [secretHash, keyID, createdAt, expiresAt])
        }
    }

    func removeSession(secretHash: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM webSession WHERE secretHash = ?", arguments: [secretHash])
        }
    }

    func insertKey(name: String, scope: String, secretHash: String, hint: String, createdAt: Double) async throws
        -> Int64
    {
        try await database.write { db -> Int64 in
            try db.execute(
                sql: "INSERT INTO apiKey (name, scope, secretHash, hint, createdAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [name, scope, secretHash, hint, createdAt])
            return db.lastInsertedRowID
        }
    }

    func keys() async throws -> [AccessKeyRow] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apiKey ORDER BY id").map { row in
                AccessKeyRow(
                    id: row["id"], name: row["name"], scope: row["scope"], hint: row["hint"],
                    createdAt: row["createdAt"], lastUsedAt: row["lastUsedAt"])
            }
        }
    }

    func removeKey(id: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM apiKey WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    func setLastUse(keyID: Int64, at moment: Double) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE apiKey SET lastUsedAt = ? WHERE id = ?", arguments: [moment, keyID])
        }
    }
}
