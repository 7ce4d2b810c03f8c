import ArgumentParser
import Foundation
import Logging
import MediaCache
import Streaming
import TunerAPI
import TunerApp

/// `tuner cache …`: acts on the running server when there is one, else on the data folder.
struct Cache: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect and manage the media cache.",
        subcommands: [Stats.self, Clear.self, Trim.self, Preload.self, Export.self, Pin.self])

    struct Target: ParsableArguments {
        @OptionGroup var dataOptions: DataOptions
        @Option(help: "URL of a running server (env TUNER_SERVER; default: the one the data folder names).")
        var server: String?

        /// The running server, or nil to act on the data folder. An explicit --server that does
        /// not answer is an error.
        func client() async throws -> ServerClient? {
            try await ServerClient.find(server: server, dataDirectory: try await dataOptions.resolvedDataDirectory())
        }

        /// The data folder's cache alone: no database, catalog, transfers or live sessions.
        func localCache() async throws -> CacheParts {
            var logger = Logger(label: "tuner")
            logger.logLevel = .warning
            return try TunerEngine.openCache(configuration: try await dataOptions.configuration(), logger: logger)
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what the cache holds and how it served.")
        @OptionGroup var target: Target
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let statistics: CacheStatistics
            if let client = try await target.client() {
                let (status, body) = try await client.send(.cacheStats)
                guard status == 200 else {
                    throw CLIError("server answered \(status): \(String(decoding: body, as: UTF8.self))")
                }
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                statistics = try decoder.decode(CacheStatistics.self, from: body)
            } else {
                let parts = try await target.localCache()
                statistics = parts.admin.statistics().cache
                try await parts.shutdown()
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(statistics), as: UTF8.self))
                return
            }
            print("entries:        \(statistics.entries)")
            print("bytes:          \(statistics.bytes) of \(statistics.capacity)")
            print("hit bytes:      \(statistics.hitBytes)")
            print("miss bytes:     \(statistics.missBytes)")
            print("origin bytes:   \(statistics.originBytes)")
            print("active fetches: \(statistics.activeFetches)")
            for error in statistics.lastErrors.prefix(10) {
                print("last error:     \(error.status) \(error.url): \(error.message)")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove everything from the cache.")
        @OptionGroup var target: Target

        func run() async throws {
            if let client = try await target.client() {
                let (status, body) = try await client.send(.cacheClear)
                guard status == 200 else {
                    throw CLIError("server answered \(status): \(String(decoding: body, as: UTF8.self))")
                }
            } else {
                let parts = try await target.localCache()
                try parts.admin.clear()
                try await parts.shutdown()
            }
            print("cache cleared")
        }
    }

    struct Preload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fill the cache with a resource ahead of playback.")
        @Argument(help: "The origin URL.") var url: String
        @Option(help: "Only the first N bytes (e.g. 8MiB).") var bytes: String?
        @Option(help: "For an HLS stream: the first S seconds.") var seconds: Double?
        @Option(help: "For an HLS stream: the first N segments.") var segments: Int?
        @Option(name: .customLong("header"), help: "A header sent upstream, 'Name: value' (repeatable).") var headers:
            [String] = []
        @OptionGroup var target: Target

        func run() async throws {
            guard let origin = URL(string: url) else { throw ValidationError("'\(url)' is not a URL") }
            let byteCount = try bytes.map { text -> Int64 in
                guard let value = ByteCount.parse(text), value > 0 else {
                    throw ValidationError("--bytes must be a positive size, got '\(text)'")
                }
                return value
            }
            let parsed = try headers.map(parseHeader)
            if let client = try await target.client() {
                let body = PreloadRequest(
                    url: url, headers: Dictionary(parsed.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
                    bytes: byteCount,
                    seconds: seconds, segments: segments)
                let (status, data) = try await client.send(.startPreload, body: body)
                guard status == 202, let job = try? JSONDecoder().decode(PreloadJobAnswer.self, from: data) else {
                    throw CLIError("server answered \(status): \(String(decoding: data, as: UTF8.self))")
                }
                var last: Int64 = -1
                while true {
                    let (status, data) = try await client.send(.preload(id: job.id))
                    guard status == 200, let current = try? JSONDecoder().decode(PreloadJobAnswer.self, from: data)
                    else {
                        throw CLIError("lost track of preload \(job.id): server answered \(status)")
                    }
                    if current.bytesDone != last {
                        last = current.bytesDone
                        if let done = current.segmentsDone, let total = current.segmentsTotal {
                            print("preloaded \(done) of \(total) segments (\(current.bytesDone) bytes)")
                            fflush(nil)
                        } else {
                            printProgress(current.bytesDone, current.bytesTotal)
                        }
                    }
                    switch current.state {
                    case "running": try await Task.sleep(for: .milliseconds(250))
                    case "complete":
                        print("preloaded \(url)")
                        return
                    default: throw CLIError("preload \(current.state): \(current.error ?? "no reason given")")
                    }
                }
            } else if seconds != nil || segments != nil {
                let parts = try await target.localCache()
                let job = try parts.preloads.startHLS(
                    link: StreamLink(url: origin, headers: parsed), seconds: seconds, segments: segments,
                    maxBandwidth: nil)
                let final = await parts.preloads.wait(id: job.id)
                try await parts.shutdown()
                guard final?.state == "complete" else {
                    throw CLIError("preload \(final?.state ?? "failed"): \(final?.error ?? "no reason given")")
                }
                print("preloaded \(final?.segmentsDone ?? 0) segments (\(final?.bytesDone ?? 0) bytes) of \(url)")
            } else {
                let parts = try await target.localCache()
                do {
                    _ = try await parts.cache.preload(
                        url: origin, upstreamHeaders: parsed.map { ($0.name, $0.value) }, byteCount: byteCount
                    ) {
                        printProgress($0.bytesDone, $0.bytesTotal)
                    }
                } catch {
                    try? await parts.shutdown()
                    throw CLIError("preload failed: \(error)")
                }
                // Shutting down waits for the fetch that fed the preload to index its last bytes.
                try await parts.shutdown()
                print("preloaded \(url)")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a fully cached resource to a file (a hard link: no second copy).")
        @Argument(help: "The origin URL.") var url: String
        @Argument(help: "Destination file, on the same disk as the data folder.") var path: String
        @OptionGroup var target: Target

        func run() async throws {
            guard let origin = URL(string: url) else { throw ValidationError("'\(url)' is not a URL") }
            let absolute = URL(fileURLWithPath: path).path
            if let client = try await target.client() {
                let (status, data) = try await client.send(
                    .cacheExport, body: CacheResourceRequest(url: url, path: absolute))
                guard status == 200 else {
                    throw CLIError("export failed (\(status)): \(String(decoding: data, as: UTF8.self))")
                }
            } else {
                let parts = try await target.localCache()
                do {
                    try parts.cache.export(url: origin, to: absolute)
                    try await parts.shutdown()
                } catch {
                    try? await parts.shutdown()
                    throw CLIError("\(error)")
                }
            }
            print("exported to \(absolute)")
        }
    }

    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evict least recently used resources down to a size (default: the configured cache size).")
        @Option(help: "The size to trim to, e.g. 500MiB or 0 (pinned and playing resources stay).") var to: String?
        @OptionGroup var target: Target

        func run() async throws {
            var budget: Int64?
            if let to {
                guard let value = ByteCount.parse(to), value >= 0 else {
                    throw ValidationError("--to must be a size like 500MiB, got '\(to)'")
                }
                budget = value
            }
            let result: TrimResponse
            if let client = try await target.client() {
                let (status, data) = try await client.send(.cacheTrim, body: TrimRequest(bytes: budget))
                guard status == 200 else {
                    throw CLIError("server answered \(status): \(String(decoding: data, as: UTF8.self))")
                }
                result = try JSONDecoder().decode(TrimResponse.self, from: data)
            } else {
                let parts = try await target.localCache()
                let report = try parts.admin.trim(downTo: budget)
                result = TrimResponse(
                    evicted: report.evicted, bytesFreed: report.bytesFreed, entries: report.entries,
                    bytes: report.bytes, milliseconds: report.milliseconds)
                try await parts.shutdown()
            }
            print(
                """
                evicted \(result.evicted) resources (\(result.bytesFreed) bytes) in \
                \(String(format: "%.1f", result.milliseconds)) ms; \(result.entries) resources (\(result.bytes) \
                bytes) remain
                """
            )
        }
    }

    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a cached resource from eviction (or --off to release it).")
        @Argument(help: "The origin URL.") var url: String
        @Flag(help: "Unpin instead.") var off = false
        @OptionGroup var target: Target

        func run() async throws {
            guard let origin = URL(string: url) else { throw ValidationError("'\(url)' is not a URL") }
            if let client = try await target.client() {
                let (status, data) = try await client.send(
                    .cachePin, body: CacheResourceRequest(url: url, pinned: !off))
                guard status == 200 else {
                    throw CLIError("server answered \(status): \(String(decoding: data, as: UTF8.self))")
                }
            } else {
                let parts = try await target.localCache()
                _ = try parts.admin.pin(CacheResourceRequest(url: origin.absoluteString, pinned: !off))
                try await parts.shutdown()
            }
            print(off ? "unpinned" : "pinned")
        }
    }
}

func printProgress(_ done: Int64, _ total: Int64?) {
    if let total, total > 0 {
        print("preloaded \(done) of \(total) bytes (\(done * 100 / total)%)")
    } else {
        print("preloaded \(done) bytes")
    }
    fflush(nil)
}

/// A failure the CLI reports as it is, with a non-zero exit.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
