import Crypto
import Foundation
import GRDB
import Logging
import NIOPosix
import TunerStorage

/// Brings a backup (``StateBackup``) back into a data folder, or refuses it with the reason and
/// changes nothing.
///
/// Everything is checked before anything is put in place: the tar's headers, that each file is
/// one a backup holds and has the length and SHA-256 its manifest says, that the manifest is
/// there (a truncated file lacks it: it is the last entry), that the schema is not a newer
/// Tuner's, and SQLite's own check of the database. The database is then migrated to this
/// version's schema, still aside; only then are the folder's files moved into
/// `before-restore-<time>/` (with `replace`) and the backup's renamed in. The folder is locked
/// for the whole time (``DataFolderLock``): a running server on it is a refusal.
public struct StateRestore: Sendable {
    public let folder: DataFolder
    public let logger: Logger

    public init(folder: DataFolder, logger: Logger) {
        self.folder = folder
        self.logger = logger
    }

    /// What a restore did.
    public struct Summary: Sendable {
        public let manifest: BackupManifest
        /// Where the folder's previous state went (with `replace`), or nil when it had none.
        public let setAside: String?
    }

    /// Restores the backup at `path`; a folder that already holds a state database is refused
    /// unless `replace`.
    public func restore(from path: String, replace: Bool) async throws -> Summary {
        let lock = try DataFolderLock(folder: folder, exclusive: true)
        defer { withExtendedLifetime(lock) {} }
        let manager = FileManager.default
        // Under the exclusive lock no other restore runs: a `.restore-<uuid>/` here was left by one
        // killed midway.
        DataFolder.removeUntouched(in: folder.path, olderThan: 0) { $0.hasPrefix(".restore-") }
        let staging = folder.path + "/.restore-\(UUID().uuidString)"
        try manager.createDirectory(
            atPath: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? manager.removeItem(atPath: staging) }
        let manifest = try await NIOThreadPool.singleton.runIfActive {
            try Self.unpack(path, into: staging)
        }
        try await NIOThreadPool.singleton.runIfActive {
            try Self.checkDatabase(staging + "/" + BackupManifest.databaseName, manifest: manifest)
        }
        // Checked after the backup, so a damaged one is said to be damaged whatever the folder holds.
        guard replace || !manager.fileExists(atPath: folder.databasePath) else {
            throw BackupError.occupied(folder.path)
        }
        let staged = Set(manifest.files.map(\.name))
        var setAside: String?
        let current = ["tuner.sqlite", "tuner.sqlite-wal", "tuner.sqlite-shm", "secret", "token", "tuner.json"]
            .filter { manager.fileExists(atPath: folder.path + "/" + $0) }
        if !current.isEmpty {
            let aside = folder.path + "/before-restore-" + Self.stamp(Date())
            try manager.createDirectory(
                atPath: aside, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            for name in current {
                try manager.moveItem(atPath: folder.path + "/" + name, toPath: aside + "/" + name)
            }
            setAside = aside
        }
        for name in staged.sorted() {
            try manager.moveItem(atPath: staging + "/" + name, toPath: folder.path + "/" + name)
        }
        StateBackup.syncDirectory(folder.path)
        logger.notice(
            "Backup restored",
            metadata: [
                "path": "\(path)", "createdAt": "\(manifest.createdAt)", "setAside": "\(setAside ?? "nothing")",
            ])
        return Summary(manifest: manifest, setAside: setAside)
    }

    /// Checks the backup at `path` as a restore would (in a folder of its own under `scratch`,
    /// removed afterwards), changing nothing: `tuner restore --check`.
    public static func check(_ path: String, scratch: String) async throws -> BackupManifest {
        // A check takes no lock (it changes nothing): only old ones' folders are leftovers.
        DataFolder.removeUntouched(in: scratch, olderThan: 3600) { $0.hasPrefix(".backup-check-") }
        let staging = scratch + "/.backup-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: staging) }
        return try await NIOThreadPool.singleton.runIfActive {
            let manifest = try unpack(path, into: staging)
            try checkDatabase(staging + "/" + BackupManifest.databaseName, manifest: manifest)
            return manifest
        }
    }

    /// Reads the whole backup into `staging`, checking each file against the manifest.
    static func unpack(_ path: String, into staging: String) throws -> BackupManifest {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BackupError.unreadable(path) }
        defer { try? handle.close() }
        var reader = BackupTar.Reader(handle: handle, path: path)
        var hashes: [String: (size: Int64, sha256: String)] = [:]
        var manifestData: Data?
        while let entry = try reader.next() {
            guard manifestData == nil else {
                throw BackupError.invalid("\(path) holds \(entry.name) after its manifest, which ends a backup")
            }
            if entry.name == BackupManifest.entryName {
                guard entry.size <= BackupManifest.maximumSize else {
                    throw BackupError.invalid("its manifest is \(entry.size) bytes: not one Tuner wrote")
                }
                var data = Data()
                try reader.readBody(size: entry.size, name: entry.name) { data.append($0) }
                manifestData = data
                continue
            }
            guard BackupManifest.allowedNames.contains(entry.name) else {
                throw BackupError.invalid("it holds \(entry.name), which no Tuner backup holds")
            }
            guard hashes[entry.name] == nil else { throw BackupError.invalid("it holds \(entry.name) twice") }
            let target = staging + "/" + entry.name
            guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
                let output = FileHandle(forWritingAtPath: target)
            else { throw BackupError.unreadable(target) }
            var hasher = SHA256()
            do {
                try reader.readBody(size: entry.size, name: entry.name) { chunk in
                    hasher.update(data: chunk)
                    try output.write(contentsOf: chunk)
                }
                try output.synchronize()
                try output.close()
            } catch {
                try? output.close()
                throw error
            }
            hashes[entry.name] = (entry.size, BackupTar.hex(hasher.finalize()))
        }
        guard let manifestData else {
            throw BackupError.invalid("it has no manifest: the file is truncated, or not a Tuner backup")
        }
        let manifest = try Self.manifest(manifestData)
        let listed = Dictionary(manifest.files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard Set(listed.keys) == Set(hashes.keys) else {
            throw BackupError.invalid("its files are not the ones its manifest lists")
        }
        for (name, file) in listed {
            guard let got = hashes[name], got.size == file.size, got.sha256 == file.sha256 else {
                throw BackupError.invalid("\(name) does not match its SHA-256 in the manifest: the file is damaged")
            }
        }
        guard listed[BackupManifest.databaseName] != nil else {
            throw BackupError.invalid("it holds no state database")
        }
        return manifest
    }

    /// The manifest, refusing another format or a newer layout before reading the rest.
    static func manifest(_ data: Data) throws -> BackupManifest {
        struct Header: Decodable {
            var format: String?
            var formatVersion: Int?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: data),
            header.format == BackupManifest.formatName, let version = header.formatVersion
        else {
            throw BackupError.invalid("its manifest does not say it is a Tuner backup")
        }
        guard version <= BackupManifest.currentFormatVersion else {
            throw BackupError.newer(
                "its format is version \(version); this Tuner reads up to "
                    + "\(BackupManifest.currentFormatVersion)")
        }
        return try BackupManifest.decode(data)
    }

    /// Refuses a database of a newer schema, or one SQLite finds damaged; then migrates it to
    /// this version's schema (a backup from an earlier Tuner opens as if that Tuner had been
    /// upgraded).
    static func checkDatabase(_ path: String, manifest: BackupManifest) throws {
        let known = Set(TunerDatabase.migrationIdentifiers(schemas: DataFolder.databaseSchemas))
        let unknown = Set(manifest.migrations).subtracting(known).sorted()
        guard unknown.isEmpty else {
            throw BackupError.newer("its schema has \(unknown.prefix(3).joined(separator: ", ")), unknown here")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let applied: [String]
        let check: [String]
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            (applied, check) = try queue.read { db in
                (
                    try StateBackup.appliedMigrations(db),
                    try String.fetchAll(db, sql: "PRAGMA quick_check")
                )
            }
        } catch {
            throw BackupError.invalid("its database cannot be read (\(error)): the file is damaged")
        }
        guard check == ["ok"] else {
            throw BackupError.invalid("SQLite finds its database damaged (\(check.prefix(2).joined(separator: "; ")))")
        }
        guard Set(applied) == Set(manifest.migrations) else {
            throw BackupError.invalid("its database's schema is not the one its manifest says")
        }
        // Migrated here, aside, then back to one file (no -wal to leave behind when it moves).
        do {
            let migrated = try TunerDatabase(path: path, schemas: DataFolder.databaseSchemas)
            try (migrated.writer as? DatabasePool)?.close()
        }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
    }

    /// `2026-11-28T153000Z`: sortable, and valid in a file name everywhere.
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
