import ArgumentParser
import Catalog
import Foundation

/// `tuner channels`: lists or searches the catalog; `tuner channels check` probes streams.
struct Channels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, search or check channels (and movies and series with --kind).",
        subcommands: [List.self, Check.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List or search channels (the default).")
        @OptionGroup var dataOptions: DataOptions
        @Option(help: "Words to search for (prefixes, accents ignored).") var search: String?
        @Option(help: "Only this group.") var group: String?
        @Option(help: "live, movie or series (default live).") var kind = "live"
        @Flag(help: "Only favourites.") var favourites = false
        @Option(help: "How many to skip.") var offset = 0
        @Option(help: "How many to show.") var limit = 50
        @Flag(help: "Print JSON.") var json = false
        @Option(
            help: ArgumentHelp(
                "Run every search of this file (one a line) and print latency percentiles.", visibility: .hidden))
        var benchQueries: String?

        func run() async throws {
            if let benchQueries {
                try await benchmark(queriesFile: benchQueries)
                return
            }
            let query = CatalogItemQuery(
                kind: CatalogItemKind(rawValue: kind), group: group, favouritesOnly: favourites, search: search,
                offset: offset, limit: limit)
            try await LocalCatalog.with(dataOptions) { catalog in
                let page = try await catalog.store.items(query)
                if json {
                    print(try jsonText(page))
                    return
                }
                for item in page.items {
                    let favourite = item.isFavourite ? "★" : " "
                    let status = Channels.status(item.streamCheck)
                    print("\(item.id)\t\(favourite)\t\(item.name)\t\(item.group ?? "")\t\(status)")
                }
                print("\(page.offset + 1)–\(page.offset + page.items.count) of \(page.total)")
            }
        }

        /// For scripts/bench-catalog: each query through the same store call as the API, timed.
        func benchmark(queriesFile: String) async throws {
            let queries = try String(contentsOfFile: queriesFile, encoding: .utf8).split(separator: "\n").map(
                String.init
            ).filter { !$0.isEmpty }
            guard !queries.isEmpty else { throw ValidationError("no queries in \(queriesFile)") }
            try await LocalCatalog.with(dataOptions) { catalog in
                let clock = ContinuousClock()
                var milliseconds: [Double] = []
                var slowest: [(Double, String)] = []
                var hits = 0
                // One warm-up pass so the first queries do not measure the page cache filling.
                for query in queries.prefix(20) {
                    _ = try await catalog.store.items(CatalogItemQuery(kind: nil, search: query, limit: limit))
                }
                // Each query's latency is the median of three runs, so that the scheduler taking
                // the core away once (a shared machine) is not counted as the query's cost.
                for query in queries {
                    var runs: [Double] = []
                    for _ in 0..<3 {
                        let start = clock.now
                        let page = try await catalog.store.items(
                            CatalogItemQuery(kind: nil, search: query, limit: limit))
                        let elapsed = clock.now - start
                        runs.append(
                            Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                        if runs.count == 1, page.total > 0 { hits += 1 }
                    }
                    let ms = runs.sorted()[1]
                    milliseconds.append(ms)
                    slowest.append((ms, query))
                }
                milliseconds.sort()
                for (ms, query) in slowest.sorted(by: { $0.0 > $1.0 }).prefix(5) {
                    FileHandle.standardError.write(Data(String(format: "slow: %.3f ms %@\n", ms, query).utf8))
                }
                func percentile(_ p: Double) -> Double {
                    milliseconds[min(milliseconds.count - 1, Int((p * Double(milliseconds.count)).rounded(.up)) - 1)]
                }
                print(
                    String(
                        format: "search p50 %.3f ms p99 %.3f ms max %.3f ms over %d queries (%d with results)",
                        percentile(0.5), percentile(0.99), milliseconds.last ?? 0, milliseconds.count, hits))
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Probe channels' streams (HEAD, a few bytes, or the HLS playlist) and record which are online.")
        @OptionGroup var dataOptions: DataOptions
        @Argument(help: "Channel ids (default: every live channel, or those of --source).") var ids: [Int64] = []
        @Option(help: "Only the channels of this source.") var source: Int64?
        @Option(help: "Probes at once.") var concurrency = 8
        @Option(help: "Seconds to wait for each answer.") var timeout: Int64 = 10
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            guard concurrency > 0, timeout > 0 else {
                throw ValidationError("--concurrency and --timeout must be positive")
            }
            try await LocalCatalog.with(dataOptions) { catalog in
                let checker = StreamChecker(
                    store: catalog.store,
                    configuration: .init(concurrency: concurrency, timeout: .seconds(timeout)), logger: catalog.logger)
                let checks = try await checker.check(ids: ids.isEmpty ? nil : ids, sourceID: source)
                if json {
                    print(try jsonText(checks))
                    return
                }
                for check in checks {
                    print("\(check.itemID)\t\(check.online ? "online" : "offline")\t\(check.reason)")
                }
                print(
                    """
                    \(checks.count) checked: \(checks.filter { $0.online }.count) online, \
                    \(checks.filter { !$0.online }.count) offline
                    """
                )
            }
        }
    }

    static func status(_ check: CatalogStreamCheck?) -> String {
        guard let check else { return "" }
        return check.online ? "online" : "offline (\(check.reason))"
    }
}

/// Pretty, sorted JSON with ISO 8601 dates, as the API writes them.
func jsonText<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
