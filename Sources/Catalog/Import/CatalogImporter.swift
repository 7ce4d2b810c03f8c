import AsyncHTTPClient
import Foundation
import Logging
import MediaFormats
import Metrics
import NIOCore

/// Refreshes sources: fetches (streaming), parses (streaming) and swaps the result into the
/// store atomically. A failed, truncated or empty fetch keeps the previous items and records the
/// error on the source.
public final class CatalogImporter: Sendable {
    /// Limits and defaults for fetching sources.
    public struct Configuration: Sendable {
        /// Sent to providers, many of which refuse requests without a player-like User-Agent.
        public var userAgent: String
        /// The whole download, headers to last byte.
        public var requestTimeout: TimeAmount
        /// Downloads larger than this are refused rather than filling the disk.
        public var maxDownloadBytes: Int64
        /// A gzip source that inflates to more than this is refused.
        public var maxInflatedBytes: Int64 = 8 << 30
        /// A provider's API answer (an Xtream panel's `player_api.php` lists) larger than this is
        /// refused: it is decoded in memory, so it is kept far below the download limit.
        public var maxProviderAnswerBytes: Int64 = 256 << 20
        /// Where downloads wait to be imported.
        public var temporaryDirectory: URL
        /// How many items go by between two progress reports.
        public var progressInterval: Int
        /// Whether an Xtream import also fetches each new movie's details (`get_vod_info`, one
        /// request per movie, four at a time); otherwise they are fetched when first asked for.
        public var movieDetailsOnImport = false
        /// When a failed download of a playlist or guide is tried again: twice more, after about
        /// 1 s and 2 s, and only for failures that may pass (no answer, reset, 408/429/5xx).
        public var retryPolicy = RetryPolicy(baseDelay: 1, multiplier: 2, maximumDelay: 10, maximumAttempts: 2)
        /// Where playlists, guides and Xtream APIs may be fetched from: every hop, redirects
        /// included, is checked on its resolved addresses (`--allow-fetch`).
        public var fetchPolicy: FetchPolicy = .any

        public init(
            userAgent: String = "Tuner/1.0", requestTimeout: TimeAmount = .minutes(10),
            maxDownloadBytes: Int64 = 2 << 30,
            temporaryDirectory: URL = FileManager.default.temporaryDirectory, progressInterval: Int = 10_000
        ) {
            self.userAgent = userAgent
            self.requestTimeout = requestTimeout
            self.maxDownloadBytes = maxDownloadBytes
            self.temporaryDirectory = temporaryDirectory
            self.progressInterval = progressInterval
        }

        public static let `default` = Configuration()
    }

    public let store: any CatalogStore
    let httpClient: HTTPClient
    let configuration: Configuration
    let logger: Logger

    public init(
        store: any CatalogStore, httpClient: HTTPClient, configuration: Configuration = .default, logger: Logger
    ) {
        self.store = store
        self.httpClient = httpClient
        self.configuration = configuration
        self.logger = logger
    }

    /// Re-imports one source and returns what it now holds. On failure the source keeps its
    /// previous items, its status becomes `failed` with the reason, and the error is rethrown.
    @discardableResult
    public func refresh(
        sourceID: Int64,
        progress: @escaping @Sendable (CatalogImportProgress) -> Void = { _ in }
    ) async throws -> CatalogImportCounts {
        guard let source = try await store.source(id: sourceID) else { throw CatalogError.sourceNotFound(sourceID) }
        var logger = self.logger
        logger[metadataKey: "source"] = "\(sourceID)"
        try await store.setSourceStatus(id: sourceID, status: .refreshing, error: source.lastError, refreshedAt: nil)
        let started = ContinuousClock.now
        // Recorded through swift-metrics (a server exports it at /metrics); a no-op unless bootstrapped.
        func record(_ outcome: String) {
            let elapsed = started.duration(to: .now).components
            Timer(
                label: "tuner_import_duration_seconds",
                dimensions: [("kind", source.kind.rawValue), ("outcome", outcome)]
            ).recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        }
        do {
            let counts: CatalogImportCounts
            // What the import refused but did not fail for (a playlist naming a local file as its
            // guide), recorded on the source for the user to see.
            var notice: String?
            switch source.kind {
            case .m3u:
                (counts, notice) = try await refreshPlaylist(source, logger: logger, progress: progress)
            case .xtream:
                counts = try await refreshXtream(source, logger: logger, progress: progress)
            default:
                throw CatalogError.unsupported("refreshing \(source.kind) sources")
            }
            try await store.setSourceStatus(id: sourceID, status: .ok, error: notice, refreshedAt: Date())
            // New channels, renamed ones: their guide by name.
            await matchGuideAfterImport(logger: logger)
            if let notice {
                logger.info("Catalog source named locations Tuner refused", metadata: ["refused": "\(notice)"])
            }
            progress(CatalogImportProgress(sourceID: sourceID, phase: .finished, entries: counts.total))
            record("ok")
            logger.info(
                "Catalog source refreshed",
                metadata: [
                    "live": "\(counts.live)", "movies": "\(counts.movies)", "series": "\(counts.series)",
                    "episodes": "\(counts.episodes)",
                ])
            return counts
        } catch {
            logger.info("Catalog source refresh failed; previous items kept", metadata: ["error": "\(error)"])
            try? await store.setSourceStatus(id: sourceID, status: .failed, error: "\(error)", refreshedAt: nil)
            record("failed")
            throw error
        }
    }

    /// A plain copy of a gzip file, made before the import's database transaction (so the
    /// transaction never waits on decompression) and checked whole: nil when `path` is not gzip.
    func inflatedCopy(of path: String) throws -> String? {
        guard try GzipFile.isGzip(path: path) else { return nil }
        let output = configuration.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).inflated")
            .path
        do {
            _ = try GzipFile.inflate(path: path, to: output, limit: configuration.maxInflatedBytes)
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        return output
    }

    /// A copy of a local playlist or guide in the imports folder, made before the import takes
    /// the database writer: the user's file (regular files only, within the size and time limits)
    /// is read while nothing waits on it, so a slow disk or a network mount never holds the
    /// writer, and the parse under the writer reads only Tuner's own copy.
    func localSnapshot(of path: String) throws -> String {
        let output = configuration.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).local")
            .path
        guard FileManager.default.createFile(atPath: output, contents: nil),
            let copy = FileHandle(forWritingAtPath: output)
        else {
            throw CatalogError.fetchFailed("cannot write a copy of \(path) to \(output)")
        }
        do {
            defer { try? copy.close() }
            try fileReader(inflated: false).read(path: path) { chunk in try copy.write(contentsOf: Data(chunk)) }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        return output
    }

    private func refreshPlaylist(
        _ source: CatalogSource,
        logger: Logger,
        progress: @escaping @Sendable (CatalogImportProgress) -> Void
    ) async throws -> (CatalogImportCounts, refused: String?) {
        let sourceID = source.id
        var path = source.location
        // The download (or the local file's copy) and the inflated copy are each removed whatever
        // happens next (`path` is reassigned below, so neither cleanup may read it).
        var download: String?
        defer { if let download { try? FileManager.default.removeItem(atPath: download) } }
        if !source.isLocalFile {
            let downloader = SourceDownloader(httpClient: httpClient, configuration: configuration, logger: logger)
            download = try await downloader.download(source.location) { bytes, total in
                progress(
                    CatalogImportProgress(sourceID: sourceID, phase: .downloading, bytes: bytes, totalBytes: total))
            }
            path = download ?? path
        } else {
            download = try localSnapshot(of: path)
            path = download ?? path
        }
        let inflated = try inflatedCopy(of: path)
        defer { if let inflated { try? FileManager.default.removeItem(atPath: inflated) } }
        if let inflated { path = inflated }

        let totalBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        let interval = max(1, configuration.progressInterval)
        let reader = fileReader(inflated: inflated != nil)
        let header = HeaderBox()
        let counts = try await store.replaceItems(ofSource: sourceID) { [path] sink in
            try M3UFileImport.run(path: path, reader: reader, into: sink, header: header) { bytes, entries in
                if entries % interval == 0 {
                    progress(
                        CatalogImportProgress(
                            sourceID: sourceID, phase: .importing, bytes: bytes, totalBytes: totalBytes,
                            entries: entries))
                }
            }
        }
        // The playlist's own guide URLs are used until the user sets some; only http(s) ones:
        // a provider never names a local file for Tuner to read.
        let named = header.value?.tvgURLs ?? []
        let urls = named.filter(ProviderLocation.isHTTP)
        header.refused.record(named.filter { !ProviderLocation.isHTTP($0) }, as: "guide")
        if source.epgURLs.isEmpty, !urls.isEmpty {
            var updated = source
            updated.epgURLs = urls
            try await store.updateSource(updated)
        }
        return (counts, header.refused.summary)
    }

    /// The reader of a playlist or guide file: the size limit for what the user or provider gave
    /// (an inflated copy is already bounded by ``Configuration/maxInflatedBytes``), and the time
    /// limit, since parsing runs while the import holds the database writer.
    func fileReader(inflated: Bool) -> ChunkedFileReader {
        ChunkedFileReader(
            limit: inflated ? configuration.maxInflatedBytes : configuration.maxDownloadBytes,
            deadline: .now + .nanoseconds(configuration.requestTimeout.nanoseconds))
    }
}
