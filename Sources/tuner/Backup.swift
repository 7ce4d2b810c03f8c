import ArgumentParser
import Foundation
import Logging
import TunerApp
import TunerStorage

/// `tuner backup [PATH]`: one file holding Tuner's whole state, written while the server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write one file holding Tuner's whole state (the server may keep running).",
        discussion: """
            The file (a tar, mode 0600) holds the state database as a SQLite file (SQLite's online backup \
            while the server runs; a PostgreSQL state copied from one snapshot), the signing key, the access \
            token and the settings file, with a manifest of each file's SHA-256 and the schema. The media \
            cache, downloads and recordings stay out. PATH defaults to \
            <backup folder>/tuner-backup-<time>.tar (--backup-dir, default <data>/backups); a folder gets \
            that name inside it. Keep the file safe: it holds the token and the providers' passwords. \
            Bring it back with `tuner restore`.
            """)
    @OptionGroup var dataOptions: DataOptions
    @Argument(help: "Where to write the backup (a new file, or a folder).") var path: String?

    func run() async throws {
        let configuration = try await dataOptions.configuration()
        let folder = try DataFolder(path: configuration.dataDirectory)
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        let stamp = Backups.fileName(at: Date())
        var target = path ?? (configuration.backupDirectory ?? folder.path + "/backups") + "/" + stamp
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
            target += "/" + stamp
        }
        let summary: StateBackup.Summary
        switch configuration.database {
        case .postgres(let address):
            summary = try await StateBackup(
                source: .postgres(.postgres(address)), folder: folder, settingsFile: configuration.settingsFile,
                logger: logger
            ).write(to: target)
        case nil, .sqlite:
            let opened = try await folder.openStateDatabase(configuration.database, logger: logger)
            guard case .sqlite(let database) = opened else { throw ExitCode(1) }
            summary = try await StateBackup(
                source: .sqlite(database), folder: folder, settingsFile: configuration.settingsFile, logger: logger
            ).write(to: target)
        }
        let files = summary.manifest.files.map(\.name).joined(separator: ", ")
        print("backup written: \(summary.path) (\(summary.size) bytes: \(files))")
    }
}

/// `tuner restore PATH`: a backup back into the data folder, with the server stopped.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring a backup back into the data folder (stop tuner serve first).",
        discussion: """
            Checks the whole backup first (each file's length and SHA-256 against its manifest, the \
            schema, SQLite's own check of the database) and refuses a damaged, truncated or newer one with \
            the reason, changing nothing. A backup from an earlier Tuner is migrated. A data folder that \
            already holds a state is refused unless --replace, which moves it into \
            <data>/before-restore-<time>/. A PostgreSQL state: restore into a data folder, then copy it with \
            `tuner database migrate --to postgres://…`.
            """)
    @OptionGroup var dataOptions: DataOptions
    @Argument(help: "The backup file.") var path: String
    @Flag(help: "Set the data folder's current state aside (before-restore-<time>/) and restore over it.")
    var replace = false
    @Flag(help: "Only check the backup, as a restore would, and change nothing.") var check = false

    func run() async throws {
        let configuration = try await dataOptions.configuration()
        if case .postgres(let address) = configuration.database {
            throw ValidationError(
                """
                this Tuner keeps its state in PostgreSQL (\(address)); restore into a data folder without \
                --database (tuner restore \(path) --data DIR), then copy it there with \
                tuner database migrate --data DIR --to postgres://…
                """)
        }
        let folder = try DataFolder(path: configuration.dataDirectory)
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        if check {
            let manifest = try await StateRestore.check(path, scratch: folder.path)
            let made = ISO8601DateFormatter().string(from: manifest.createdAt)
            print(
                "the backup of \(made) is whole: \(manifest.files.map(\.name).joined(separator: ", ")), "
                    + "\(manifest.migrations.count) migrations")
            return
        }
        let summary = try await StateRestore(folder: folder, logger: logger).restore(from: path, replace: replace)
        let made = ISO8601DateFormatter().string(from: summary.manifest.createdAt)
        print("restored the backup of \(made) into \(folder.path)")
        if let aside = summary.setAside { print("the previous state is in \(aside)") }
    }
}
