import ArgumentParser
import Foundation
import Outputs
import TunerAPI
import TunerApp

/// `tuner outputs …`: the profiles players are given (M3U, XMLTV, HDHomeRun), on the data folder.
struct OutputsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outputs",
        abstract: "Output profiles for Plex, Jellyfin, Emby, TiviMate and VLC: list, add, change, remove, show, edit.",
        subcommands: [List.self, Add.self, Change.self, Remove.self, Show.self, Edit.self], defaultSubcommand: List.self
    )

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
        @Flag(
            inversion: .prefixedEnableDisable,
            help: "Only the channels added by hand (tuner outputs edit --add, the web app's lineup editor).")
        var pickedOnly: Bool?

        func settings(id: String?) -> OutputProfileSettings {
            OutputProfileSettings(
                id: id, name: name, kinds: kind.isEmpty ? nil : kind, sourceIDs: source.isEmpty ? nil : source,
                groups: group.isEmpty ? nil : group, favouritesOnly: favourites ? true : nil, search: search,
                start: start, order: order, keepPlaylistNumbers: keepNumbers ? true : nil, streamLimit: streamLimit,
                streamProfile: streamProfile, pickedOnly: pickedOnly)
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
        @Flag(help: "Add each channel's identity (what `tuner outputs edit` names channels by).") var identities = false

        func run() async throws {
            try await place.with { outputs, _ in
                for channel in try await outputs.lineup(profileID: id) {
                    let line = "\(channel.number)\t\(channel.name)\t\(channel.item.group ?? "")"
                    print(identities ? line + "\t" + channel.item.identity : line)
                }
            }
        }
    }

    /// The lineup editor's changes from the command line, all applied as one change (or none).
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a profile's lineup by channel identity (see `tuner outputs show --identities`).",
            discussion: """
                Every option applies in one change, all or nothing: added and removed first, then \
                renumbered, then moved, then names, groups, logos and disabled flags. An empty value \
                (--rename ID=) goes back to the playlist's.
                """)
        @OptionGroup var place: Place
        @Argument(help: "The profile's id.") var id: String
        @Option(help: "Put a channel into the lineup; repeat for several.") var add: [String] = []
        @Option(help: "Take a channel out (its number is forgotten); repeat for several.") var remove: [String] = []
        @Option(help: "Number these channels (--renumber, else the whole lineup, added ones last) from N.")
        var renumberFrom: Int?
        @Option(help: "A channel to renumber, in order; repeat for several.") var renumber: [String] = []
        @Option(help: "ID=N: move a channel to number N (the channels from N up to a free number move up one).")
        var move: String?
        @Option(help: "ID=NAME: the name players show; repeat for several.") var rename: [String] = []
        @Option(help: "ID=GROUP: the group players file it under; repeat for several.") var group: [String] = []
        @Option(help: "ID=URL: the logo players show (http or https); repeat for several.") var logo: [String] = []
        @Option(help: "Keep a channel's number but leave it out of every output; repeat for several.")
        var disable: [String] = []
        @Option(help: "Show a disabled channel again; repeat for several.") var enable: [String] = []

        func run() async throws {
            try await place.with { outputs, _ in
                var change = OutputLineupChange(add: add, remove: remove)
                if let renumberFrom {
                    // Without --renumber: the whole lineup as this change leaves it, in its order,
                    // the channels added here after it.
                    var order = renumber
                    if order.isEmpty {
                        let removed = Set(remove)
                        order = try await outputs.lineup(profileID: id).map(\.item.identity)
                            .filter { !removed.contains($0) }
                        let present = Set(order)
                        order += add.filter { !present.contains($0) && !removed.contains($0) }
                    }
                    change.renumber = .init(identities: order, from: renumberFrom)
                }
                if let move {
                    let (identity, value) = try Self.pair(move, "--move")
                    guard let number = Int(value) else { throw ValidationError("--move takes ID=NUMBER") }
                    change.place = .init(identity: identity, number: number)
                }
                var edits: [String: OutputLineupChange.Edit] = [:]
                func edit(_ identity: String, _ body: (inout OutputLineupChange.Edit) -> Void) {
                    var value = edits[identity] ?? .init(identity: identity)
                    body(&value)
                    edits[identity] = value
                }
                for text in rename {
                    let (identity, name) = try Self.pair(text, "--rename")
                    edit(identity) { $0.name = name }
                }
                for text in group {
                    let (identity, value) = try Self.pair(text, "--group")
                    edit(identity) { $0.group = value }
                }
                for text in logo {
                    let (identity, value) = try Self.pair(text, "--logo")
                    edit(identity) { $0.logo = value }
                }
                for identity in disable { edit(identity) { $0.disabled = true } }
                for identity in enable { edit(identity) { $0.disabled = false } }
                change.edits = edits.keys.sorted().compactMap { edits[$0] }
                guard !change.isEmpty else { throw ValidationError("say what to change: --add, --remove, …") }
                try await outputs.changeLineup(profileID: id, change)
                for channel in try await outputs.lineup(profileID: id) {
                    print("\(channel.number)\t\(channel.name)\t\(channel.item.group ?? "")")
                }
            }
        }

        /// `ID=VALUE`, split at the first `=` (an identity is `tvg:…`, `id:…`, `url:…` or `name:…`
        /// and rarely holds one; a name may).
        static func pair(_ text: String, _ option: String) throws -> (String, String) {
            guard let equals = text.firstIndex(of: "=") else { throw ValidationError("\(option) takes ID=VALUE") }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }
}
