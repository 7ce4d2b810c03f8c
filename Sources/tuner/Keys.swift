import ArgumentParser
import Foundation
import Logging
import TunerApp

/// `tuner keys …`: API keys for other clients and for signing in to the web app, on the data
/// folder (beside a running server too: it looks keys up in the same file).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "API keys with a scope (read, play, manage, admin): list, add, remove.",
        subcommands: [List.self, Add.self, Remove.self], defaultSubcommand: List.self)

    static func with(_ options: DataOptions, _ body: (AccessControl) async throws -> Void) async throws {
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        let access = try await TunerEngine.openAccess(configuration: try await options.configuration(), logger: logger)
        do {
            try await body(access)
        } catch let error as FeatureError {
            throw ValidationError(error.description)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await KeysCommand.with(dataOptions) { access in
                let keys = try await access.keys()
                if keys.isEmpty { print("no keys: make one with `tuner keys add NAME --scope read`") }
                let format = ISO8601DateFormatter()
                for key in keys {
                    print(
                        "\(key.id)\t\(key.name)\t\(key.scope.rawValue)\t\(key.hint)\t"
                            + "made \(format.string(from: key.createdAt))"
                            + "\tlast used \(key.lastUsedAt.map(format.string(from:)) ?? "never")")
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key; its secret is printed this once.",
            discussion: """
                Scopes include the ones before them: read (look), play (and watch), manage (and act: \
                downloads, sources, cache), admin (everything, keys and logins included).
                """)
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "What the key is for, like living-room-tv (1 to 64 characters).") var name: String
        @Option(help: "read, play, manage or admin.") var scope: String

        func run() async throws {
            guard let scope = AccessScope(rawValue: scope.lowercased()) else {
                throw ValidationError("--scope must be read, play, manage or admin")
            }
            try await KeysCommand.with(dataOptions) { access in
                let made = try await access.addKey(name: name, scope: scope)
                print("key \(made.key.id) '\(made.key.name)' (\(scope.rawValue)):")
                print(made.secret)
                FileHandle.standardError.write(
                    Data("keep it now: Tuner stores only its hash and cannot show it again\n".utf8))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a key; browsers signed in with it are signed out.")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "The key's id, from `tuner keys list`.") var id: Int64

        func run() async throws {
            try await KeysCommand.with(dataOptions) { access in
                try await access.removeKey(id: id)
                print("removed key \(id)")
            }
        }
    }
}
