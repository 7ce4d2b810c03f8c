import ArgumentParser
import Foundation
import TunerAPI
import TunerApp

/// `tuner users …`: Xtream logins for players, on the data folder.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Xtream Codes logins for players (TiviMate, IPTV Smarters): list, add, change, remove.",
        subcommands: [List.self, Add.self, Change.self, Remove.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List logins (never their passwords).")
        @OptionGroup var place: OutputsCommand.Place

        func run() async throws {
            try await place.with { outputs, base in
                for user in try await outputs.users() {
                    print(
                        "\(user.username)\tprofiles \(user.profileIDs.joined(separator: ","))\t"
                            + "\(user.maxConnections) streams\t\(user.streamProfile)\t"
                            + (user.expiresAt.map { "expires \($0)\t" } ?? "") + (user.isDisabled ? "disabled\t" : "")
                            + "server \(base)")
                }
            }
        }
    }

    /// The password, read from standard input so it stays out of the shell's history and `ps`.
    struct Password: ParsableArguments {
        @Flag(help: "Read the password from standard input (one line).") var passwordStdin = false

        func read() throws -> String? {
            guard passwordStdin else { return nil }
            guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("no password on standard input")
            }
            return line
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a login: `echo PASSWORD | tuner users add NAME --password-stdin`.")
        @OptionGroup var place: OutputsCommand.Place
        @Argument(help: "The username: 1 to 64 of letters, digits, '.', '_', '-'.") var name: String
        @OptionGroup var password: Password
        @Option(help: "A profile the login sees; repeat for several (default: default).") var profile: [String] = []
        @Option(help: "Streams the login may open at once, 1 to 64 (default 1).") var maxConnections: Int?
        @Option(help: "How live channels reach the player: direct, remux or transcode.") var streamProfile: String?
        @Option(help: "When the login stops working, in seconds since 1970 (default: never).") var expiresAt: Int64?

        func run() async throws {
            guard let secret = try password.read() else {
                throw ValidationError("give the password on standard input with --password-stdin")
            }
            try await place.with { outputs, base in
                let user = try await outputs.addUser(
                    OutputUserSettings(
                        username: name, password: secret, profiles: profile.isEmpty ? nil : profile,
                        maxConnections: maxConnections, streamProfile: streamProfile, expiresAt: expiresAt))
                print("added \(user.username): in the player, server \(base), username \(user.username)")
            }
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a login's profiles, limit, expiry or password, or disable or enable it.")
        @OptionGroup var place: OutputsCommand.Place
        @Argument(help: "The username.") var name: String
        @OptionGroup var password: Password
        @Option(help: "A profile the login sees; repeat for several (replaces the list).") var profile: [String] = []
        @Option(help: "Streams the login may open at once, 1 to 64.") var maxConnections: Int?
        @Option(help: "How live channels reach the player: direct, remux or transcode.") var streamProfile: String?
        @Option(help: "When the login stops working, in seconds since 1970; 0 for never.") var expiresAt: Int64?
        @Flag(
            inversion: .prefixedEnableDisable,
            help: "Enable the login, or disable it (it then sees its account and nothing else).")
        var login: Bool?

        func run() async throws {
            let secret = try password.read()
            try await place.with { outputs, _ in
                let user = try await outputs.updateUser(
                    name,
                    OutputUserSettings(
                        password: secret, profiles: profile.isEmpty ? nil : profile, maxConnections: maxConnections,
                        streamProfile: streamProfile, expiresAt: expiresAt, disabled: login.map { !$0 }))
                print("changed \(user.username)" + (user.isDisabled ? " (disabled)" : ""))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a login.")
        @OptionGroup var place: OutputsCommand.Place
        @Argument(help: "The username.") var name: String

        func run() async throws {
            try await place.with { outputs, _ in
                try await outputs.removeUser(name)
                print("removed \(name)")
            }
        }
    }
}
