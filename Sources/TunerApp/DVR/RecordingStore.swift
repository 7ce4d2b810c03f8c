import Foundation
import TunerAPI

/// The DVR's rows in one engine (``SQLiteRecordingStore``, ``PostgresRecordingStore``). Every
/// method is one transaction.
protocol RecordingStore: Sendable {
    func rules() async throws -> [RecordingRule]
    /// Stores a new rule and returns it with its id.
    func addRule(_ rule: RecordingRule) async throws -> RecordingRule
    /// Removes a rule; false when there was none.
    func removeRule(id: Int64) async throws -> Bool
    func recordings() async throws -> [Recording]
    func recording(id: Int64) async throws -> Recording?
    /// The recordings in `state` whose span starts at or before `time` (the index on state and
    /// start answers it: the DVR asks twice a second).
    func recordings(in state: Recording.State, startingBy time: Int64) async throws -> [Recording]
    /// Stores a new recording, or, when one with its identity exists, returns that one
    /// unchanged: two requests for one programme make one recording.
    func insert(_ recording: Recording) async throws -> (recording: Recording, inserted: Bool)
    /// Writes a recording's fields (its identity stays).
    func update(_ recording: Recording) async throws
    func remove(id: Int64) async throws
}

extension RecordingStore {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
