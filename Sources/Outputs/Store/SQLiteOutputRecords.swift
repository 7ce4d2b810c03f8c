import Foundation
import GRDB

/// ``OutputRecords`` in the data folder's SQLite file (``OutputSchema``).
struct SQLiteOutputRecords: OutputRecords {
    let database: any DatabaseWriter

    // MARK: Profiles

    func profiles() async throws -> [OutputProfileRow] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outputProfile ORDER BY createdAt, id").map(Self.profile(from:))
        }
    }

    func profile(id: String) async throws -> OutputProfileRow? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outputProfile WHERE id = ?", arguments: [id])
                .map(Self.profile(from:))
        }
    }

    func insertProfile(_ row: OutputProfileRow) async throws -> Bool {
        try await database.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM outputProfile WHERE id = ?", arguments: [row.id]) == true {
                return false
            }
            try db.execute(
                sql: """
                    INSERT INTO outputProfile (id, name, selection, numbering, renames, edits, deviceID, accessKey,
                        streamLimit, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    row.id, row.name, row.selection, row.numbering, row.renames, row.edits, row.deviceID,
                    row.accessKey, row.streamLimit, row.createdAt,
                ])
            return true
        }
    }

    func updateProfileSettings(_ row: OutputProfileRow) async throws -> Bool {
        try await database.write { db in try Self.updateSettings(db, row) }
    }

    static func updateSettings(_ db: Database, _ row: OutputProfileRow) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE outputProfile SET name = ?, selection = ?, numbering = ?, renames = ?, edits = ?, streamLimit = ?
                WHERE id = ?
                """,
            arguments: [row.name, row.selection, row.numbering, row.renames, row.edits, row.streamLimit, row.id])
        return db.changesCount > 0
    }

    func setStreamProfile(_ value: String, ofProfile id: String) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE outputProfile SET streamProfile = ? WHERE id = ?", arguments: [value, id])
        }
    }

    func removeProfile(id: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM outputProfile WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Numbers

    func numbers(profileID: String) async throws -> [OutputChannelKey: Int] {
        try await database.read { db in try Self.numbers(db, profileID: profileID) }
    }

    static func numbers(_ db: Database, profileID: String) throws -> [OutputChannelKey: Int] {
        var numbers: [OutputChannelKey: Int] = [:]
        let count =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM outputNumber WHERE profileID = ?", arguments: [profileID])
            ?? 0
        numbers.reserveCapacity(count)
        let rows = try Row.fetchCursor(
            db, sql: "SELECT kind, identity, number FROM outputNumber WHERE profileID = ?", arguments: [profileID])
        while let row = try rows.next() {
            numbers[OutputChannelKey(kind: row[0], identity: row[1])] = row[2]
        }
        return numbers
    }

    func changeLineup(
        profileID: String,
        _ change: @escaping @Sendable (OutputProfileRow, [OutputChannelKey: Int]) throws -> LineupRows
    ) async throws -> OutputProfileRow? {
        try await database.write { db in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM outputProfile WHERE id = ?", arguments: [profileID])
                    .map(Self.profile(from:))
            else { return nil }
            let old = try Self.numbers(db, profileID: profileID)
            let new = try change(row, old)
            _ = try Self.updateSettings(db, new.profile)
            let (removed, added) = new.changes(from: old)
            let remove = try db.makeStatement(
                sql: "DELETE FROM outputNumber WHERE profileID = ? AND kind = ? AND identity = ?")
            for key in removed { try remove.execute(arguments: [profileID, key.kind, key.identity]) }
            let insert = try db.makeStatement(
                sql: "INSERT INTO outputNumber (profileID, kind, identity, number) VALUES (?, ?, ?, ?)")
            for (key, number) in added { try insert.execute(arguments: [profileID, key.kind, key.identity, number]) }
            return new.profile
        }
    }

    func addNumbers(_ numbers: [OutputChannelKey: Int], profileID: String) async throws {
        try await database.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO outputNumber (profileID, kind, identity, number) VALUES (?, ?, ?, ?)")
            for (key, number) in numbers {
                try statement.execute(arguments: [profileID, key.kind, key.identity, number])
            }
        }
    }

    // MARK: Logos

    func insertLogo(name: String, bytes: [UInt8], createdAt: Double) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outputLogo (name, bytes, createdAt) VALUES (?, ?, ?)",
                arguments: [name, Data(bytes), createdAt])
            return db.changesCount > 0
        }
    }

    func logo(name: String) async throws -> [UInt8]? {
        try await database.read { db in
            try Data.fetchOne(db, sql: "SELECT bytes FROM outputLogo WHERE name = ?", arguments: [name]).map(Array.init)
        }
    }

    // MARK: Users

    func users() async throws -> [OutputUserRow] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outputUser ORDER BY username").map(Self.user(from:))
        }
    }

    func user(named name: String) async throws -> OutputUserRow? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outputUser WHERE username = ?", arguments: [name])
                .map(Self.user(from:))
        }
    }

    func insertUser(_ row: OutputUserRow) async throws -> Bool {
        try await database.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM outputUser WHERE username = ?", arguments: [row.username])
                == true
            {
                return false
            }
            try db.execute(
                sql: """
                    INSERT INTO outputUser (
                        username, passwordHash, salt, rounds, profileIDs, maxConnections, createdAt, expiresAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    row.username, row.password.hash, row.password.salt, row.password.rounds, row.profileIDs,
                    row.maxConnections, row.createdAt, row.expiresAt,
                ])
            return true
        }
    }

    func setStreamProfile(_ value: String, ofUser username: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE outputUser SET streamProfile = ? WHERE username = ?", arguments: [value, username])
        }
    }

    func setDisabled(_ value: Bool, ofUser username: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE outputUser SET disabled = ? WHERE username = ?", arguments: [value ? 1 : 0, username])
        }
    }

    func updateUser(
        named username: String, profileIDs: String, maxConnections: Int, expiresAt: Int64?, password: PasswordHash?
    ) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE outputUser SET profileIDs = ?, maxConnections = ?, expiresAt = ? WHERE username = ?",
                arguments: [profileIDs, maxConnections, expiresAt, username])
            guard db.changesCount > 0 else { return false }
            if let password {
                try db.execute(
                    sql: "UPDATE outputUser SET passwordHash = ?, salt = ?, rounds = ? WHERE username = ?",
                    arguments: [password.hash, password.salt, password.rounds, username])
            }
            return true
        }
    }

    func removeUser(named name: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM outputUser WHERE username = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    // MARK: Rows

    static func profile(from row: Row) -> OutputProfileRow {
        OutputProfileRow(
            id: row["id"], name: row["name"], selection: row["selection"], numbering: row["numbering"],
            renames: row["renames"], edits: row["edits"] ?? "{}", deviceID: row["deviceID"],
            accessKey: row["accessKey"],
            streamLimit: row["streamLimit"], streamProfile: row["streamProfile"] ?? "direct",
            createdAt: row["createdAt"])
    }

    static func user(from row: Row) -> OutputUserRow {
        OutputUserRow(
            username: row["username"],
            password: PasswordHash(hash: row["passwordHash"], salt: row["salt"], rounds: row["rounds"]),
            profileIDs: row["profileIDs"], maxConnections: row["maxConnections"],
            streamProfile: row["streamProfile"] ?? "direct", createdAt: row["createdAt"], expiresAt: row["expiresAt"],
            disabled: (row["disabled"] as Int64?) == 1)
    }
}
