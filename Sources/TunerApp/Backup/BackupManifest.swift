import Foundation

/// The first entry of a backup (`manifest.json`): what made it, when, the schema its database is
/// at (the migrations applied), and each file's length and SHA-256, checked at restore before
/// anything is put in place.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// Always `tuner-backup`: tells a Tuner backup from any other tar.
    public var format: String
    /// The layout of the backup; a later Tuner that changes it raises it, and this one refuses
    /// a layout it does not know.
    public var formatVersion: Int
    public var createdAt: Date
    /// The engine the state came from (`sqlite` or `postgres`); the backup always holds it as
    /// a SQLite file.
    public var engine: String
    /// The migrations the backed-up database has, by identifier.
    public var migrations: [String]
    public var files: [File]

    /// One file of the backup.
    public struct File: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var sha256: String
    }

    public static let formatName = "tuner-backup"
    public static let currentFormatVersion = 1
    /// The entry the manifest is in: always the first.
    public static let entryName = "manifest.json"
    /// A manifest is small; a longer first entry is not one.
    static let maximumSize: Int64 = 1 << 20

    /// The files a backup may hold, and nothing else: names in a backup are only ever compared
    /// with these, so a hostile backup cannot name a file of its own choosing.
    public static let databaseName = "tuner.sqlite"
    public static let allowedNames: Set<String> = [databaseName, "secret", "token", "tuner.json"]

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func decode(_ data: Data) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(BackupManifest.self, from: data)
        } catch {
            throw BackupError.invalid("its manifest is not one Tuner reads")
        }
    }
}
