import Foundation
import Logging
import PostgresNIO
import TunerAPI
import TunerStorage

/// The DVR's rows in PostgreSQL. An insert is `INSERT … ON CONFLICT (identity) DO NOTHING`, so
/// two nodes planning one programme at once make one recording.
struct PostgresRecordingStore: RecordingStore {
    let database: TunerPostgres
    let logger: Logger

    func rules() async throws -> [RecordingRule] {
        let logger = logger
        return try await database.read { connection in
            var rules: [RecordingRule] = []
            for try await (id, body) in try await connection.query(
                "SELECT id, body FROM recordingRule ORDER BY id", logger: logger
            ).decode((Int64, String).self) {
                var rule = try Self.decode(RecordingRule.self, body)
                rule.id = id
                rules.append(rule)
            }
            return rules
        }
    }

    func addRule(_ rule: RecordingRule) async throws -> RecordingRule {
        let logger = logger
        let body = try Self.encode(rule)
        return try await database.write { connection in
            var id: Int64 = 0
            for try await value in try await connection.query(
                "INSERT INTO recordingRule (body) VALUES (\(body)) RETURNING id", logger: logger
            ).decode(Int64.self) { id = value }
            var stored = rule
            stored.id = id
            let text = try Self.encode(stored)
            _ = try await connection.query("UPDATE recordingRule SET body = \(text) WHERE id = \(id)", logger: logger)
            return stored
        }
    }

    func removeRule(id: Int64) async throws -> Bool {
        let logger = logger
        return try await database.write { connection in
            try await !connection.query("DELETE FROM recordingRule WHERE id = \(id) RETURNING 1", logger: logger)
                .collect().isEmpty
        }
    }

    func recordings() async throws -> [Recording] {
        let logger = logger
        return try await database.read { connection in
            try await Self.rows(
                connection.query("SELECT id, body FROM recording ORDER BY recordStart, id", logger: logger))
        }
    }

    func recordings(in state: Recording.State, startingBy time: Int64) async throws -> [Recording] {
        let logger = logger
        let name = state.rawValue
        return try await database.read { connection in
            try await Self.rows(
                connection.query(
                    """
                    SELECT id, body FROM recording WHERE state = \(name) AND recordStart <= \(time)
                    ORDER BY recordStart, id
                    """, logger: logger))
        }
    }

    func recording(id: Int64) async throws -> Recording? {
        let logger = logger
        return try await database.read { connection in
            try await Self.rows(connection.query("SELECT id, body FROM recording WHERE id = \(id)", logger: logger))
                .first
        }
    }

    func insert(_ recording: Recording) async throws -> (recording: Recording, inserted: Bool) {
        let logger = logger
        let body = try Self.encode(recording)
        let identity = recording.identity
        let state = recording.state.rawValue
        let start = recording.recordStart
        return try await database.write { connection in
            var id: Int64?
            for try await value in try await connection.query(
                """
                INSERT INTO recording (identity, state, recordStart, body)
                VALUES (\(identity), \(state), \(start), \(body))
                ON CONFLICT (identity) DO NOTHING RETURNING id
                """, logger: logger
            ).decode(Int64.self) { id = value }
            guard let id else {
                let existing = try await Self.rows(
                    connection.query("SELECT id, body FROM recording WHERE identity = \(identity)", logger: logger))
                guard let first = existing.first else { throw FeatureError(.failed, "recording \(identity) vanished") }
                return (first, false)
            }
            var stored = recording
            stored.id = id
            let text = try Self.encode(stored)
            _ = try await connection.query("UPDATE recording SET body = \(text) WHERE id = \(id)", logger: logger)
            return (stored, true)
        }
    }

    func update(_ recording: Recording) async throws {
        let logger = logger
        let body = try Self.encode(recording)
        let state = recording.state.rawValue
        let start = recording.recordStart
        let id = recording.id
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE recording SET state = \(state), recordStart = \(start), body = \(body) WHERE id = \(id)",
                logger: logger)
        }
    }

    func remove(id: Int64) async throws {
        let logger = logger
        try await database.write { connection in
            _ = try await connection.query("DELETE FROM recording WHERE id = \(id)", logger: logger)
        }
    }

    static func rows(_ rows: PostgresRowSequence) async throws -> [Recording] {
        var result: [Recording] = []
        for try await (id, body) in rows.decode((Int64, String).self) {
            var recording = try decode(Recording.self, body)
            recording.id = id
            result.append(recording)
        }
        return result
    }
}
