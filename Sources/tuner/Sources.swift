import ArgumentParser
import Catalog
import Foundation
import MediaFormats
import TunerApp

/// `tuner sources …`: the playlists, Xtream accounts and guides the catalog imports.
struct Sources: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage catalog sources (M3U playlists, Xtream accounts, XMLTV guides).",
        subcommands: [List.self, Add.self, Refresh.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List sources and their last refresh.")
        @OptionGroup var dataOptions: DataOptions

        func run() async throws {
            try await LocalCatalog.with(dataOptions) { catalog in
                for source in try await catalog.store.sources() { print(Self.line(source)) }
            }
        }

        /// One source as a line: id, kind, status, name, location without its secrets, last error.
        static func line(_ source: CatalogSource) -> String {
            var line = "\(source.id)\t\(source.kind)\t\(source.status)\t\(source.name)\t\(SecretRedactor.redactURL(source.location))"
            if let error = source.lastError { line += "\terror: \(SecretRedactor.redact(error))" }
            return line
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an M3U playlist (URL or file) or an XMLTV guide, and import it.")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Playlist or guide URL, or a local file.") var location: String
        @Option(help: "Display name (default: from the location).") var name: String?
        @Flag(help: "The location is an XMLTV guide rather than a playlist.") var guide = false
        @Flag(help: "The location is an Xtream Codes server, or a pasted player_api.php URL with username and password.") var xtream = false
        @Option(name: [.customLong("username"), .customLong("user")], help: "Xtream Codes username (the location is then the server URL).")
        var username: String?
        @Option(help: "Xtream Codes password.") var password: String?
        @Flag(help: "Add without importing now.") var noRefresh = false
        @Option(help: "Hours between scheduled refreshes while `tuner serve` runs (default 24, or env TUNER_CATALOG_REFRESH_INTERVAL).")
        var refreshHours: Double?
        @Option(help: "Guide (XMLTV) URL to import with a playlist or account; repeat for several.") var epg: [String] = []

        func run() async throws {
            var location = location
            let isURL = location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://")
            // An Xtream account: said with --xtream or --username, or a pasted panel URL.
            let isXtream = xtream || username != nil || password != nil || (isURL && location.lowercased().contains("/player_api.php"))
            if !isURL {
                guard !isXtream else { throw ValidationError("an Xtream account's location is its server URL, such as http://host:8080") }
                location = URL(fileURLWithPath: location).standardizedFileURL.path
                guard FileManager.default.fileExists(atPath: location) else { throw ValidationError("no such file: \(location)") }
            }
            var draft = CatalogSourceDraft(kind: guide ? .xmltv : .m3u, name: name, location: location, epgURLs: epg)
            if let text = ProcessInfo.processInfo.environment["TUNER_CATALOG_REFRESH_INTERVAL"] {
                guard let seconds = DurationText.seconds(text), seconds > 0 else {
                    throw ValidationError("TUNER_CATALOG_REFRESH_INTERVAL must be a positive duration like 6h or 1d, got '\(text)'")
                }
                draft.refreshInterval = seconds
            }
            if let refreshHours {
                guard refreshHours > 0 else { throw ValidationError("--refresh-hours must be positive") }
                draft.refreshInterval = refreshHours * 3600
            }
            if isXtream {
                guard !guide else { throw ValidationError("--guide and --xtream do not go together: an Xtream account brings its own guide") }
                guard let credentials = XtreamCredentials.parse(location, username: username, password: password) else {
                    throw ValidationError("an Xtream account needs --user and --password (or a pasted player_api.php URL with both)")
                }
                // The server alone: a pasted URL's query holds the password.
                draft = CatalogSourceDraft(
                    kind: .xtream, name: name, location: credentials.server, xtream: credentials, epgURLs: epg,
                    refreshInterval: draft.refreshInterval)
            }
            try await LocalCatalog.with(dataOptions) { catalog in
                let source = try await catalog.store.addSource(draft)
                print("added source \(source.id): \(source.name)")
                guard !noRefresh else { return }
                try await Refresh.refresh(source, catalog)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-import sources (all of them by default).")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Source ids.") var ids: [Int64] = []

        func run() async throws {
            try await LocalCatalog.with(dataOptions) { catalog in
                var failed = false
                for source in try await catalog.store.sources() where ids.isEmpty || ids.contains(source.id) {
                    do {
                        try await Self.refresh(source, catalog)
                    } catch {
                        failed = true
                        print("source \(source.id) failed: \(error)")
                    }
                }
                if failed { throw ExitCode.failure }
            }
        }

        static func refresh(_ source: CatalogSource, _ catalog: LocalCatalog) async throws {
            let clock = ContinuousClock()
            let start = clock.now
            if source.kind == .xmltv {
                let counts = try await catalog.importer.refreshGuide(sourceID: source.id, now: Int64(Date().timeIntervalSince1970))
                print("source \(source.id): \(counts.channels) guide channels, \(counts.programmes) programmes in \(clock.now - start)")
                return
            }
            let counts = try await catalog.importer.refresh(sourceID: source.id)
            print("source \(source.id): \(counts.live) channels, \(counts.movies) movies, \(counts.series) series, \(counts.episodes) episodes in \(clock.now - start)")
            // The playlist's x-tvg-url, the panel's xmltv.php or --epg: the guide comes along.
            guard let updated = try await catalog.store.source(id: source.id), !updated.epgURLs.isEmpty else { return }
            do {
                let guide = try await catalog.importer.refreshGuide(sourceID: source.id, now: Int64(Date().timeIntervalSince1970))
                print("source \(source.id) guide: \(guide.channels) channels, \(guide.programmes) programmes")
            } catch {
                print("source \(source.id) guide failed (the previous guide is kept): \(error)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a source and its items (favourites are kept).")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Source id.") var id: Int64

        func run() async throws {
            try await LocalCatalog.with(dataOptions) { try await $0.store.removeSource(id: id) }
        }
    }
}
