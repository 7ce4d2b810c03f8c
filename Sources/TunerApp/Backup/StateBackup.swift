import Crypto
import Foundation
import GRDB
import Logging
import NIOPosix
import TunerStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one file holding Tuner's whole state: the state database as a SQLite file, the signing
/// key and the access token, and the settings file, with a manifest (`manifest.json`, the last
/// entry) of each file's length and SHA-256 and the schema's migrations. The media cache,
/// downloads, recordings and time-shift stay out: they are media, not state.
///
/// The server keeps running: SQLite's online backup API copies one consistent snapshot while
/// writers go on (WAL), and a PostgreSQL state is copied table by table from one snapshot
/// (``StateMigration``). The file is written beside its final name and renamed into place when
/// complete, with mode 0600: it holds the token and the providers' passwords.
public struct StateBackup: Sendable {
    /// Where the state is read from.
    public enum Source: Sendable {
        /// An open SQLite state database (the server's, or one the CLI opened).
        case sqlite(TunerDatabase)
        /// A PostgreSQL database, copied into the backup's SQLite file.
        case postgres(DatabaseLocation)
    }

    public let source: Source
    public let folder: DataFolder
    /// The settings file in use, kept as `tuner.json` when it exists.
    public let settingsFile: String?
    public let logger: Logger

    public init(source: Source, folder: DataFolder, settingsFile: String?, logger: Logger) {
        self.source = source
        self.folder = folder
        self.settingsFile = settingsFile
        self.logger = logger
    }

    /// What a written backup holds.
    public struct Summary: Sendable, Equatable {
        public let path: String
        public let size: Int64
        public let manifest: BackupManifest
    }

    /// Writes the backup to `path`, which must not exist yet.
    public func write(to path: String) async throws -> Summary {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: path) else { throw BackupError.exists(path) }
        let directory = (path as NSString).deletingLastPathComponent
        try manager.createDirectory(atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true)
        Self.removeLeftovers(in: directory.isEmpty ? "." : directory, olderThan: 3600)
        let work = (directory.isEmpty ? "." : directory) + "/.tuner-backup-\(UUID().uuidString)"
        try manager.createDirectory(
            atPath: work, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? manager.removeItem(atPath: work) }
        let database = work + "/" + BackupManifest.databaseName
        let started = ContinuousClock.now
        let (engine, migrations) = try await copyDatabase(to: database)

        var files: [(name: String, path: String)] = [(BackupManifest.databaseName, database)]
        for (name, file) in [("secret", folder.secretPath), ("token", folder.tokenPath)]
        where manager.fileExists(atPath: file) {
            files.append((name, file))
        }
        if let settingsFile, manager.fileExists(atPath: settingsFile) { files.append(("tuner.json", settingsFile)) }
        let partial = path + ".partial"
        let createdAt = Date()
        let entries = files
        let manifest = try await NIOThreadPool.singleton.runIfActive {
            try Self.writeArchive(
                files: entries, to: partial, createdAt: createdAt, engine: engine, migrations: migrations)
        }
        do {
            guard !manager.fileExists(atPath: path) else { throw BackupError.exists(path) }
            try manager.moveItem(atPath: partial, toPath: path)
            Self.syncDirectory(directory.isEmpty ? "." : directory)
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
        let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
        logger.info(
            "Backup written",
            metadata: [
                "path": "\(path)", "bytes": "\(size ?? 0)", "engine": "\(engine)",
                "took": "\(started.duration(to: .now))",
            ])
        return Summary(path: path, size: size ?? 0, manifest: manifest)
    }

    /// Copies the state into a SQLite file at `path`; answers the engine it came from and the
    /// migrations the copy has.
    private func copyDatabase(to path: String) async throws -> (String, [String]) {
        switch source {
        case .sqlite(let database):
            return try await NIOThreadPool.singleton.runIfActive {
                let target = try DatabaseQueue(path: path)
                // One step: the whole snapshot in one read transaction, however busy the server.
                try database.writer.backup(to: target)
                let migrations = try Self.settle(target)
                try target.close()
                return ("sqlite", migrations)
            }
        case .postgres(let location):
            let report = try await StateMigration(schemas: DataFolder.databaseSchemas, logger: logger)
                .copy(from: location, to: .sqlite(path: path), replace: false)
            guard report.isVerified else {
                throw BackupError.invalid("the copy of \(location) did not match it; back up again")
            }
            let migrations = try await NIOThreadPool.singleton.runIfActive {
                let target = try DatabaseQueue(path: path)
                defer { try? target.close() }
                return try Self.settle(target)
            }
            return ("postgres", migrations)
        }
    }

    /// Makes a copied database one file (no -wal beside it to forget) and reads the migrations
    /// that made it.
    static func settle(_ target: DatabaseQueue) throws -> [String] {
        try target.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            return try appliedMigrations(db)
        }
    }

    /// The migrations a state database has had, by identifier.
    static func appliedMigrations(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
    }

    /// Writes the tar (files, then the manifest) to `path`, synced to disk.
    private static func writeArchive(
        files: [(name: String, path: String)], to path: String, createdAt: Date, engine: String,
        migrations: [String]
    ) throws -> BackupManifest {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw BackupError.exists(path) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            let writer = BackupTar.Writer(handle: handle)
            var entries: [BackupManifest.File] = []
            for file in files {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                let sha256 = try writer.add(name: file.name, contentsOf: file.path, size: size, modified: createdAt)
                entries.append(BackupManifest.File(name: file.name, size: size, sha256: sha256))
            }
            let manifest = BackupManifest(
                format: BackupManifest.formatName, formatVersion: BackupManifest.currentFormatVersion,
                createdAt: createdAt, engine: engine, migrations: migrations, files: entries)
            try writer.add(
                name: BackupManifest.entryName, data: try BackupManifest.encoder().encode(manifest),
                modified: createdAt)
            try writer.finish()
            try handle.synchronize()
            try handle.close()
            return manifest
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    /// Removes what a backup killed midway left in `directory` (its `.tuner-backup-<uuid>/` and
    /// `tuner-backup-….partial`) once untouched for `age` seconds: no backup running beside this
    /// one (the CLI's, the server's) is still writing such old files.
    static func removeLeftovers(in directory: String, olderThan age: Double) {
        DataFolder.removeUntouched(in: directory, olderThan: age) { name in
            name.hasPrefix(".tuner-backup-") || (name.hasPrefix("tuner-backup-") && name.hasSuffix(".partial"))
        }
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }
}
