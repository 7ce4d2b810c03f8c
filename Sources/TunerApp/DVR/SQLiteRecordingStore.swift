import Foundation
import GRDB
import TunerAPI
import TunerStorage

/// The DVR's rows in the data folder's SQLite file.
struct SQLiteRecordingStore: RecordingStore {
    let pool: any DatabaseWriter

    init(database: TunerDatabase) {
        pool = database.writer
    }

    func rules() async throws -> [RecordingRule] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, body FROM recordingRule ORDER BY id").map { row in
                var rule = try Self.decode(RecordingRule.self, row["body"])
                rule.id = row["id"]
                return rule
            }
        }
    }

    func addRule(_ rule: RecordingRule) async throws -> RecordingRule {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO recordingRule (body) VALUES (?)", arguments: [try Self.encode(rule)])
            var stored = rule
            stored.id = db.lastInsertedRowID
            try db.execute(
                sql: "UPDATE recordingRule SET body = ? WHERE id = ?", arguments: [try Self.encode(stored), stored.id])
            return stored
        }
    }

    func removeRule(id: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM recordingRule WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    func recordings() async throws -> [Recording] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, body FROM recording ORDER BY recordStart, id").map(Self.recording)
        }
    }

    func recordings(in state: Recording.State, startingBy time: Int64) async throws -> [Recording] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, body FROM recording WHERE state = ? AND recordStart <= ? ORDER BY recordStart, id",
                arguments: [state.rawValue, time]
            ).map(Self.recording)
        }
    }

    func recording(id: Int64) async throws -> Recording? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT id, body FROM recording WHERE id = ?", arguments: [id]).map(
                Self.recording)
        }
    }

    func insert(_ recording: Recording) async throws -> (recording: Recording, inserted: Bool) {
        try await pool.write { db in
            if let row = try Row.fetchOne(
                db, sql: "SELECT id, body FROM recording WHERE identity = ?", arguments: [recording.identity])
            {
                return (try Self.recording(row), false)
            }
            try db.execute(
                sql: "INSERT INTO recording (identity, state, recordStart, body) VALUES (?, ?, ?, ?)",
                arguments: [
                    recording.identity, recording.state.rawValue, recording.recordStart, try Self.encode(recording),
                ])
            var stored = recording
            stored.id = db.lastInsertedRowID
            try db.execute(
                sql: "UPDATE recording SET body = ? WHERE id = ?", arguments: [try Self.encode(stored), stored.id])
            return (stored, true)
        }
    }

    func update(_ recording: Recording) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE recording SET state = ?, recordStart = ?, body = ? WHERE id = ?",
                arguments: [
                    recording.state.rawValue, recording.recordStart, try Self.encode(recording), recording.id,
                ])
        }
    }

    func remove(id: Int64) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM recording WHERE id = ?", arguments: [id]) }
    }

    static func recording(_ row: Row) throws -> Recording {
        var recording = try decode(Recording.self, row["body"])
        recording.id = row["id"]
        return recording
    }
}
