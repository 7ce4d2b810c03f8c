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
            let location = SecretRedactor.redactURL(source.location)
            var line = "\(source.id)\t\(source.kind)\t\(source.status)\t\(source.name)\t\(location)"
            if let error = source.lastError { line += "\terror: \(SecretRedactor.redact(error))" }
            return line
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an M3U playlist (URL or file) or an XMLTV guide, and import it.")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Playlist or guide URL, or a local file.") var location: String
        @Option(help: "Display name (default: from the location).") var name: String?
        @Flag(help: "The location is an XMLTV guide rather than a playlist.") var guide = false
        @Flag(
            help: "The location is an Xtream Codes server, or a pasted player_api.php URL with username and password.")
        var xtream = false
        @Option(
            name: [.customLong("username"), .customLong("user")],
            help: "Xtream Codes username (the location is then the server URL).")
        var username: String?
        @Option(help: "Xtream Codes password.") var password: String?
        @Flag(help: "Add without importing now.") var noRefresh = false
        @Option(
            help:
                """
                Hours between scheduled refreshes while `tuner serve` runs (default 24, or env \
                TUNER_CATALOG_REFRESH_INTERVAL).
                """
        )
        var refreshHours: Double?
        @Option(help: "Guide (XMLTV) URL to import with a playlist or account; repeat for several.") var epg: [String] =
            []

        func run() async throws {
            guard !(guide && xtream) else {
                throw ValidationError("--guide and --xtream do not go together: an Xtream account brings its own guide")
            }
            var refreshInterval: Double?
            if let refreshHours {
                guard refreshHours > 0 else { throw ValidationError("--refresh-hours must be positive") }
                refreshInterval = refreshHours * 3600
            }
            let new = Library.NewSource(
                location: location, name: name, kind: guide ? "xmltv" : xtream ? "xtream" : nil, username: username,
                password: password,
                epgURLs: epg, refreshInterval: refreshInterval)
            try await LocalCatalog.with(dataOptions) { catalog in
                let source: CatalogSource
                do {
                    source = try await catalog.library.addSource(new)
                } catch let error as FeatureError {
                    throw ValidationError(error.description)
                }
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
            let refreshed = try await catalog.library.refresh(sourceID: source.id)
            if source.kind == .xmltv {
                let guide = refreshed.guide ?? GuideImportCounts()
                print(
                    """
                    source \(source.id): \(guide.channels) guide channels, \(guide.programmes) programmes in \
                    \(clock.now - start)
                    """
                )
                return
            }
            let counts = refreshed.counts
            print(
                """
                source \(source.id): \(counts.live) channels, \(counts.movies) movies, \(counts.series) series, \
                \(counts.episodes) episodes in \(clock.now - start)
                """
            )
            // The playlist's x-tvg-url, the panel's xmltv.php or --epg: the guide comes along.
            if let guide = refreshed.guide {
                print("source \(source.id) guide: \(guide.channels) channels, \(guide.programmes) programmes")
            } else if let error = refreshed.guideError {
                print("source \(source.id) guide failed (the previous guide is kept): \(error)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a source and its items (favourites are kept).")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Source id.") var id: Int64

        func run() async throws {
            try await LocalCatalog.with(dataOptions) { try await $0.library.removeSource(id: id) }
        }
    }
}
