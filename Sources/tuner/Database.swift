import ArgumentParser
import Foundation
import Logging
import TunerApp
import TunerStorage

/// `tuner database …`: the state database itself (SQLite or PostgreSQL).
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database",
        abstract: "The state database: copy it between SQLite and PostgreSQL.",
        subcommands: [Migrate.self])

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy Tuner's state into another database, verified table by table.",
            discussion: """
                Copies every table of the configured database (the data folder's tuner.sqlite, or \
                --database) into the one --to names, then reads each table back and compares its rows \
                and a SHA-256 of them with the source; exits 1 if any differs. Stop `tuner serve` first: \
                what it writes during the copy is not in the copy. A target that already holds Tuner \
                data is refused unless --replace, which empties it in the same transaction.
                """)
        @OptionGroup var dataOptions: DataOptions
        @Option(help: "The target: postgres://USER@HOST:PORT/DATABASE or sqlite:PATH.") var to: String
        @Option(
            name: .customLong("to-password-file"),
            help: "A file whose first line is the target's PostgreSQL password (else the URL's, or PGPASSWORD).")
        var toPasswordFile: String?
        @Flag(help: "Empty a target that already holds Tuner data and copy over it.") var replace = false

        func run() async throws {
            let configuration = try await dataOptions.configuration()
            let folder = try DataFolder(path: configuration.dataDirectory)
            let source = configuration.database ?? .sqlite(path: folder.databasePath)
            let target: DatabaseLocation
            do {
                target = try DatabaseLocation(
                    to, passwordFile: toPasswordFile, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError("--to: \(error.description)")
            }
            var logger = Logger(label: "tuner")
            logger.logLevel = .warning
            let migration = StateMigration(schemas: DataFolder.databaseSchemas, logger: logger)
            print("copying \(source) into \(target)")
            let report = try await migration.copy(from: source, to: target, replace: replace)
            print(report.text)
            guard report.isVerified else {
                FileHandle.standardError.write(
                    Data("the copy does not match its source: see the tables marked MISMATCH\n".utf8))
                throw ExitCode(1)
            }
            print("copied \(report.tables.reduce(0) { $0 + $1.targetRows }) rows in \(report.tables.count) tables")
        }
    }
}
