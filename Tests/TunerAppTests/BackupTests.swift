import Foundation
import GRDB
import Logging
import Testing
import TunerStorage
import TunerTesting

@testable import TunerApp

/// Backups and restores on real SQLite files in real folders: a backup holds the state and the
/// secrets and restores byte for byte; a damaged, truncated, foreign or newer backup is refused
/// with its reason and the folder is left as it was; a running engine's lock refuses a restore;
/// the schedule keeps only the newest.
@Suite struct BackupTests {
    let logger = Logger(label: "backup-tests")

    /// A data folder with a state database holding a source (and its password), and the secrets.
    func makeFolder(_ workspace: Scratch, _ name: String) throws -> (DataFolder, TunerDatabase) {
        let folder = try DataFolder(path: workspace.file(name))
        _ = try folder.loadOrCreateSecret()
        _ = try folder.loadOrCreateToken()
        let database = try folder.openDatabase()
        try database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO catalogSource (kind, name, location, xtreamServer, xtreamUsername, xtreamPassword)
                    VALUES ('xtream', 'Provider', 'http://provider.example', 'http://provider.example', 'me',
                            'pa55word')
                    """)
        }
        try Data(#"{"port": 8123}"#.utf8).write(to: URL(fileURLWithPath: folder.path + "/tuner.json"))
        return (folder, database)
    }

    func backUp(_ folder: DataFolder, _ database: TunerDatabase, to path: String) async throws -> StateBackup.Summary {
        try await StateBackup(
            source: .sqlite(database), folder: folder, settingsFile: folder.path + "/tuner.json", logger: logger
        ).write(to: path)
    }

    /// Every file of `folder`, by name, with its bytes (what a refused restore must not change);
    /// the lock file, which a restore takes first, is no state.
    func snapshot(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        let manager = FileManager.default
        for name in (try? manager.subpathsOfDirectory(atPath: path)) ?? [] where name != "tuner.lock" {
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = manager.contents(atPath: path + "/" + name)
            }
        }
        return files
    }

    @Test("a backup restores the state, the secrets and the settings into a fresh folder")
    func roundTrip() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let summary = try await backUp(folder, database, to: workspace.file("out/b.tar"))
        #expect(summary.manifest.files.map(\.name) == ["tuner.sqlite", "secret", "token", "tuner.json"])
        #expect(
            Set(summary.manifest.migrations)
                == Set(TunerDatabase.migrationIdentifiers(schemas: DataFolder.databaseSchemas)))
        let mode = try FileManager.default.attributesOfItem(atPath: summary.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600, "a backup holds secrets: only its owner may read it")
        // Any tar reads it.
        let listed = try await ExternalCommand.run("/usr/bin/tar", ["-tf", summary.path], timeout: .seconds(30))
        #expect(
            listed.output.split(separator: "\n") == ["tuner.sqlite", "secret", "token", "tuner.json", "manifest.json"])

        let target = try DataFolder(path: workspace.file("two"))
        let restored = try await StateRestore(folder: target, logger: logger).restore(
            from: summary.path, replace: false)
        #expect(restored.setAside == nil)
        #expect(try target.loadOrCreateSecret() == folder.loadOrCreateSecret())
        #expect(try target.loadOrCreateToken() == folder.loadOrCreateToken())
        #expect(FileManager.default.contents(atPath: target.path + "/tuner.json") == Data(#"{"port": 8123}"#.utf8))
        let copy = try target.openDatabase()
        let password = try await copy.writer.read { db in
            try String.fetchOne(db, sql: "SELECT xtreamPassword FROM catalogSource WHERE name = 'Provider'")
        }
        #expect(password == "pa55word")
        #expect(!FileManager.default.fileExists(atPath: target.databasePath + "-wal.restore"))
    }

    @Test("a folder that holds a state is refused without --replace; with it, the old state is set aside")
    func occupiedFolder() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let summary = try await backUp(folder, database, to: workspace.file("b.tar"))
        let (other, otherDatabase) = try makeFolder(workspace, "two")
        try (otherDatabase.writer as? DatabasePool)?.close()
        let before = snapshot(other.path)
        await #expect(throws: BackupError.occupied(other.path)) {
            try await StateRestore(folder: other, logger: logger).restore(from: summary.path, replace: false)
        }
        #expect(snapshot(other.path) == before)
        let restored = try await StateRestore(folder: other, logger: logger).restore(from: summary.path, replace: true)
        let aside = try #require(restored.setAside)
        #expect(FileManager.default.contents(atPath: aside + "/secret") == before["secret"])
        #expect(try other.loadOrCreateSecret() == folder.loadOrCreateSecret())
    }

    @Test("a damaged, truncated, foreign or newer backup is refused with its reason, changing nothing")
    func refusals() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let summary = try await backUp(folder, database, to: workspace.file("b.tar"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: summary.path))
        let target = try DataFolder(path: workspace.file("target"))
        let before = snapshot(target.path)

        func refused(_ bytes: Data, _ label: String) async -> String {
            let path = workspace.file("bad-\(label).tar")
            try? bytes.write(to: URL(fileURLWithPath: path))
            do {
                _ = try await StateRestore(folder: target, logger: logger).restore(from: path, replace: false)
                Issue.record("\(label): restored")
                return ""
            } catch {
                #expect(snapshot(target.path) == before, "\(label) changed the folder")
                return "\(error)"
            }
        }
        // Truncated anywhere before the manifest's end: inside a header, a body, or just before the manifest.
        for cut in [100, 512, 600, 4096, whole.count / 2, whole.count - 1024 - 600] {
            let reason = await refused(whole.prefix(cut), "cut\(cut)")
            #expect(reason.contains("truncated") || reason.contains("no manifest"), "cut at \(cut): \(reason)")
        }
        // One flipped bit in the database's bytes.
        var flipped = whole
        flipped[512 + 4000] ^= 0x01
        #expect(await refused(flipped, "flipped").contains("does not match its SHA-256"))
        // A header's checksum.
        var header = whole
        header[10] ^= 0x20
        #expect(await refused(header, "header").contains("checksum"))
        // Not a backup at all.
        #expect(await refused(Data(repeating: 0x41, count: 2048), "foreign").contains("checksum"))
        // Names a file outside the allowed ones (a path of its own choosing).
        let evil = try Self.tar([("../../evil", Data("x".utf8))])
        #expect(await refused(evil, "evil").contains("which no Tuner backup holds"))
        #expect(!FileManager.default.fileExists(atPath: workspace.file("evil")))

        // A newer Tuner's backup: a migration unknown here, or a newer layout.
        let newer = try await Self.rewrite(summary.path, in: workspace) { manifest in
            manifest.migrations.append("catalog-v99-from-the-future")
        }
        #expect(await refused(newer, "newer-schema").contains("newer Tuner"))
        let layout = try await Self.rewrite(summary.path, in: workspace) { $0.formatVersion = 2 }
        #expect(await refused(layout, "newer-format").contains("newer Tuner"))
    }

    @Test("any damaged byte or cut of a backup is refused with a reason or restores whole: never a trap")
    func mutationsNeverTrap() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let summary = try await backUp(folder, database, to: workspace.file("b.tar"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: summary.path))
        // The headers, sizes and manifest are where a hostile file would aim: mutate those most.
        let manifestStart = whole.count - 1024
        var generator = SystemRandomNumberGenerator()
        var refusedCount = 0
        for round in 0..<150 {
            var bytes = whole
            switch round % 3 {
            case 0:
                // A header field: the first entry's, or one further in.
                let header =
                    [0, 512 * (1 + Int.random(in: 0..<(whole.count / 512 - 3), using: &generator))]
                    .randomElement(using: &generator) ?? 0
                bytes[header + Int.random(in: 0..<512, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            case 1:
                bytes[Int.random(in: 0..<whole.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            default:
                bytes = bytes.prefix(Int.random(in: 0..<min(whole.count, manifestStart + 1024), using: &generator))
            }
            let path = workspace.file("m\(round).tar")
            try bytes.write(to: URL(fileURLWithPath: path))
            let target = try DataFolder(path: workspace.file("t\(round)"))
            do {
                _ = try await StateRestore(folder: target, logger: logger).restore(from: path, replace: false)
                // A change the checks cannot see (padding, an unused header byte) restored the state whole.
                #expect(try target.loadOrCreateSecret() == folder.loadOrCreateSecret())
            } catch let error as BackupError {
                refusedCount += 1
                #expect(!FileManager.default.fileExists(atPath: target.databasePath), "\(error)")
            }
        }
        #expect(refusedCount > 50, "most mutations must be caught: \(refusedCount) of 150")
    }

    @Test("a backup of an earlier schema restores migrated to this version's, its rows kept")
    func earlierSchemaIsMigrated() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        // A database as an earlier Tuner left it: the catalog's first migrations only.
        let old = workspace.file("old.sqlite")
        let earlier = "catalog-v5-live"
        do {
            let queue = try DatabaseQueue(path: old)
            var migrator = DatabaseMigrator()
            for schema in DataFolder.databaseSchemas { schema.registerMigrations(in: &migrator) }
            try migrator.migrate(queue, upTo: earlier)
            try await queue.write { db in
                try db.execute(
                    sql: "INSERT INTO catalogSource (kind, name, location) VALUES ('m3u', 'Old list', 'http://x/l.m3u')"
                )
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
            }
            try queue.close()
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: old))
        let sum = try await ExternalCommand.run("/usr/bin/sha256sum", [old], timeout: .seconds(30))
        let sha256 = String(sum.output.prefix(64))
        let applied = Array(
            TunerDatabase.migrationIdentifiers(schemas: DataFolder.databaseSchemas).prefix {
                $0 != "catalog-v6-guide-matching"
            })
        #expect(applied.last == earlier)
        let manifest = BackupManifest(
            format: BackupManifest.formatName, formatVersion: 1, createdAt: Date(), engine: "sqlite",
            migrations: applied,
            files: [BackupManifest.File(name: "tuner.sqlite", size: Int64(data.count), sha256: sha256)])
        let backup = workspace.file("earlier.tar")
        try Self.tar([
            ("tuner.sqlite", data), (BackupManifest.entryName, try BackupManifest.encoder().encode(manifest)),
        ])
        .write(to: URL(fileURLWithPath: backup))

        let target = try DataFolder(path: workspace.file("target"))
        _ = try await StateRestore(folder: target, logger: logger).restore(from: backup, replace: false)
        let restored = try DatabaseQueue(path: target.databasePath)
        let (migrations, name) = try await restored.read { db in
            (
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                try String.fetchOne(db, sql: "SELECT name FROM catalogSource")
            )
        }
        #expect(Set(migrations) == Set(TunerDatabase.migrationIdentifiers(schemas: DataFolder.databaseSchemas)))
        #expect(name == "Old list")
        #expect(!FileManager.default.fileExists(atPath: target.databasePath + "-wal"))
    }

    @Test("a restore is refused while an engine holds the folder, and an engine cannot start during a restore")
    func folderLock() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let summary = try await backUp(folder, database, to: workspace.file("b.tar"))
        let target = try DataFolder(path: workspace.file("target"))
        do {
            let running = try DataFolderLock(folder: target, exclusive: false)
            await #expect(throws: BackupError.serverRunning(target.path)) {
                try await StateRestore(folder: target, logger: logger).restore(from: summary.path, replace: false)
            }
            withExtendedLifetime(running) {}
        }
        let restoring = try DataFolderLock(folder: target, exclusive: true)
        #expect(throws: FeatureError.self) { try DataFolderLock(folder: target, exclusive: false) }
        withExtendedLifetime(restoring) {}
    }

    @Test("what a killed backup or restore left behind is removed by the next one; a running one's is kept")
    func leftoversAreSwept() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let out = workspace.file("out")
        let manager = FileManager.default
        try manager.createDirectory(atPath: out + "/.tuner-backup-old", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: out + "/.tuner-backup-running", withIntermediateDirectories: true)
        _ = manager.createFile(atPath: out + "/tuner-backup-old.tar.partial", contents: Data("x".utf8))
        _ = manager.createFile(atPath: out + "/notes.partial", contents: Data("mine".utf8))
        let hoursAgo = Date().addingTimeInterval(-7200)
        for name in [".tuner-backup-old", "tuner-backup-old.tar.partial", "notes.partial"] {
            try manager.setAttributes([.modificationDate: hoursAgo], ofItemAtPath: out + "/" + name)
        }
        let summary = try await backUp(folder, database, to: out + "/b.tar")
        let left = Set(try manager.contentsOfDirectory(atPath: out))
        #expect(left == ["b.tar", ".tuner-backup-running", "notes.partial"], "\(left)")

        let target = try DataFolder(path: workspace.file("target"))
        try manager.createDirectory(atPath: target.path + "/.restore-killed", withIntermediateDirectories: true)
        _ = try await StateRestore(folder: target, logger: logger).restore(from: summary.path, replace: false)
        #expect(!manager.fileExists(atPath: target.path + "/.restore-killed"))
    }

    @Test("scheduled backups keep the newest --backup-keep")
    func scheduleKeepsTheNewest() async throws {
        let workspace = try Scratch()
        defer { workspace.remove() }
        let (folder, database) = try makeFolder(workspace, "one")
        let directory = workspace.file("backups")
        let backups = Backups(
            backup: StateBackup(source: .sqlite(database), folder: folder, settingsFile: nil, logger: logger),
            directory: directory, everySeconds: 1, keep: 2, logger: logger)
        let schedule = Task { await backups.runSchedule() }
        // The first backup is written at once; it is gone once two newer ones were written.
        var first: String?
        var left: [String] = []
        for _ in 0..<600 {
            left = backups.list().backups.map(\.name)
            if first == nil { first = left.last }
            if let first, !left.contains(first), left.count == 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        schedule.cancel()
        await schedule.value
        let written = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tar") }
        #expect(first != nil && !written.contains(first ?? ""), "the oldest backup was not removed: \(written)")
        #expect(written.count == 2, "\(written)")
        for name in written {
            _ = try await StateRestore.check(directory + "/" + name, scratch: workspace.file("scratch"))
        }
    }

    /// A tar of `entries`, as Tuner writes one.
    static func tar(_ entries: [(String, Data)]) throws -> Data {
        let path = FileManager.default.temporaryDirectory.path + "/tar-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let writer = BackupTar.Writer(handle: handle)
        for (name, data) in entries { try writer.add(name: name, data: data, modified: Date()) }
        try writer.finish()
        try handle.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The backup at `path` with its manifest changed by `edit` (the files and their sums kept).
    static func rewrite(_ path: String, in workspace: Scratch, _ edit: (inout BackupManifest) -> Void) async throws
        -> Data
    {
        let staging = workspace.file("rewrite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        var manifest = try StateRestore.unpack(path, into: staging)
        edit(&manifest)
        var entries: [(String, Data)] = []
        for file in manifest.files {
            entries.append((file.name, try Data(contentsOf: URL(fileURLWithPath: staging + "/" + file.name))))
        }
        entries.append((BackupManifest.entryName, try BackupManifest.encoder().encode(manifest)))
        return try tar(entries)
    }
}

/// A folder of its own for one test, removed at its end.
struct Scratch {
    let path = FileManager.default.temporaryDirectory.path + "/tuner-backup-test-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
