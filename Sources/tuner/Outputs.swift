import ArgumentParser
import Foundation
import TunerAPI
import TunerApp

/// `tuner outputs …`: the profiles players are given (M3U, XMLTV, HDHomeRun), on the data folder.
struct OutputsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "Output profiles for Plex, Jellyfin, Emby, TiviMate and VLC: list, add, change, remove, show.",
        subcommands: [List.self, Add.self, Change.self, Remove.self, Show.self], defaultSubcommand: List.self)

    /// Where players reach the server, for the URLs printed.
    struct Place: ParsableArguments {
        @OptionGroup var dataOptions: DataOptions
        @Option(
            name: .customLong("base-url"),
            help:
                """
                How players reach Tuner, e.g. http://192.168.1.10:8080 (default: the configured base URL, else host \
                and port).
                """)
        var baseURL: String?

        func base(_ configuration: TunerConfiguration) -> String {
            if let baseURL { return baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }
            if let configured = configuration.baseURL { return configured }
            let host = configuration.host
            let shown =
                host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
            return "http://\(shown):\(configuration.port)"
        }

        func with(_ body: (OutputCenter, String) async throws -> Void) async throws {
            let configuration = try await dataOptions.configuration()
            try await LocalCatalog.with(dataOptions) { catalog in
                do {
                    try await catalog.parts.outputs.ensureDefaultProfile()
                    try await body(catalog.parts.outputs, base(configuration))
                } catch let error as FeatureError {
                    throw ValidationError(error.description)
                }
            }
        }
    }

    /// The settings a user may give, as options.
    struct Settings: ParsableArguments {
        @Option(help: "Name players show.") var name: String?
        @Option(help: "Only this group (group-title); repeat for several.") var group: [String] = []
        @Option(help: "Only this source id; repeat for several.") var source: [Int64] = []
        @Option(help: "live, movie or series; repeat for several (default live).") var kind: [String] = []
        @Flag(help: "Only favourites.") var favourites = false
        @Option(help: "Only channels whose name or group has these words.") var search: String?
        @Option(help: "The first number given (default 1).") var start: Int?
        @Option(help: "playlist, favourites or name: the order new channels are numbered in.") var order: String?
        @Flag(help: "Keep the playlist's own channel numbers (tvg-chno) when free.") var keepNumbers = false
        @Option(help: "Streams players may open at once (HDHomeRun TunerCount), 1 to 64.") var streamLimit: Int?
        @Option(help: "How live channels reach players: direct, remux or transcode.") var streamProfile: String?

        func settings(id: String?) -> OutputProfileSettings {
            OutputProfileSettings(
                id: id, name: name, kinds: kind.isEmpty ? nil : kind, sourceIDs: source.isEmpty ? nil : source,
                groups: group.isEmpty ? nil : group, favouritesOnly: favourites ? true : nil, search: search,
                start: start, order: order, keepPlaylistNumbers: keepNumbers ? true : nil, streamLimit: streamLimit,
                streamProfile: streamProfile)
        }
    }

    static func describe(_ answer: OutputProfileAnswer) -> String {
        """
        \(answer.id)\t\(answer.name)\t\(answer.channelCount) channels\tdevice \(answer.deviceID)\t\
        \(answer.streamLimit) streams\t\(answer.streamProfile)
          M3U:       \(answer.playlistURL)
          XMLTV:     \(answer.guideURL)
          HDHomeRun: \(answer.hdhomerunURL)
        """
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List profiles with the URLs to give players (with the profile's key, for other machines).")
        @OptionGroup var place: Place

        func run() async throws {
            try await place.with { outputs, base in
                for profile in try await outputs.profiles() {
                    print(OutputsCommand.describe(try await outputs.answer(for: profile, base: base)))
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a profile and number its channels.")
        @OptionGroup var place: Place
        @Argument(help: "The profile's id: 1 to 32 of a-z, 0-9 and '-'; part of every URL.") var id: String
        @OptionGroup var settings: Settings

        func run() async throws {
            try await place.with { outputs, base in
                let profile = try await outputs.create(settings.settings(id: id))
                print(OutputsCommand.describe(try await outputs.answer(for: profile, base: base)))
            }
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a profile; channels keep the numbers they have.")
        @OptionGroup var place: Place
        @Argument(help: "The profile's id.") var id: String
        @OptionGroup var settings: Settings

        func run() async throws {
            try await place.with { outputs, base in
                let profile = try await outputs.update(id: id, settings: settings.settings(id: nil))
                print(OutputsCommand.describe(try await outputs.answer(for: profile, base: base)))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a profile (not the default one).")
        @OptionGroup var place: Place
        @Argument(help: "The profile's id.") var id: String

        func run() async throws {
            try await place.with { outputs, _ in
                try await outputs.remove(id: id)
                print("removed profile \(id)")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a profile's lineup: number and name.")
        @OptionGroup var place: Place
        @Argument(help: "The profile's id (default: default).") var id: String = "default"

        func run() async throws {
            try await place.with { outputs, _ in
                for channel in try await outputs.lineup(profileID: id) {
                    print("\(channel.number)\t\(channel.name)\t\(channel.item.group ?? "")")
                }
            }
        }
    }
}
