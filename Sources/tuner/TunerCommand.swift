import ArgumentParser
import Foundation
import MediaFormats
import TunerApp

/// The `tuner` command line: thin wrappers around TunerApp and TunerServer.
@main
struct TunerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tuner",
        abstract: "A caching stream proxy and IPTV gateway.",
        subcommands: [
            Serve.self, Open.self, ProxyURL.self, Cache.self, Playlist.self, Sources.self, Channels.self, Guide.self,
            M3U.self, XMLTV.self, Download.self, Upload.self, TransfersCommand.self, OutputsCommand.self,
            UsersCommand.self, KeysCommand.self, StreamsCommand.self, RecordingsCommand.self, RulesCommand.self,
            Watch.self, DatabaseCommand.self, ClusterCommand.self, BackupCommand.self, RestoreCommand.self,
        ]
    )

    /// Runs the command; an error's message is printed with provider secrets redacted, since it
    /// often quotes the URL that failed (and terminals are shared, recorded and pasted).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let message = fullMessage(for: error)
            let redacted = SecretRedactor.redact(message)
            guard redacted != message else { exit(withError: error) }
            FileHandle.standardError.write(Data((redacted + "\n").utf8))
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }
}

/// The data folder and configuration file options shared by every command.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder (env TUNER_DATA, default ./.tuner).")
    var data: String?
    @Option(
        name: .long,
        help: "Configuration file, JSON (env TUNER_CONFIG; default <data>/tuner.json when it exists).")
    var config: String?
    @Option(
        name: .long,
        help:
            """
            Where the state lives: sqlite:PATH, or a PostgreSQL URL: postgres://HOST:PORT/DATABASE with USER@ \
            before the host and ?sslmode=require for TLS (env TUNER_DATABASE; default <data>/tuner.sqlite).
            """)
    var database: String?
    @Option(
        name: .customLong("database-password-file"),
        help: "A file whose first line is the PostgreSQL password (env TUNER_DATABASE_PASSWORD_FILE, or PGPASSWORD).")
    var databasePasswordFile: String?

    /// The configuration, read once: `flags` (a command's own options, by setting name) and these
    /// options over the environment, the configuration file and the defaults.
    func configuration(flags: [String: String] = [:]) async throws -> TunerConfiguration {
        var flags = flags
        if let data { flags[TunerConfiguration.Setting.data.rawValue] = data }
        if let config { flags[TunerConfiguration.Setting.config.rawValue] = config }
        if let database { flags[TunerConfiguration.Setting.database.rawValue] = database }
        if let databasePasswordFile {
            flags[TunerConfiguration.Setting.databasePasswordFile.rawValue] = databasePasswordFile
        }
        return try await TunerConfiguration.load(flags: flags)
    }

    func resolvedDataDirectory() async throws -> String {
        try await configuration().dataDirectory
    }
}
