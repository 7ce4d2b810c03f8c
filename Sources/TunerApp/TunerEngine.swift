import AsyncHTTPClient
import Catalog
import Foundation
import Logging
import MediaCache
import Transfers
import TunerStorage
import TusServer

/// The composition root: builds every service once from a configuration. The server, the CLI
/// and embedding apps all start from here.
public final class TunerEngine: Sendable {
    public let configuration: TunerConfiguration
    public let dataFolder: DataFolder
    public let cache: MediaCache
    public let signer: StreamLinkSigner
    public let httpClient: HTTPClient
    public let logger: Logger
    public let preloads: PreloadJobs
    public let streams: StreamService
    /// Sources, channels, guide and favourites, in `<data folder>/tuner.sqlite`.
    /// The data folder's SQLite database, shared by the catalog and the transfers.
    public let database: TunerDatabase
    public let catalog: SQLiteCatalogStore
    /// Play and catch-up links (a feature object shared by the API, the CLI and the web app).
    public let player: Player
    /// Sources: add, refresh, change, remove (a feature object, as `player`).
    public let library: Library
    public let catalogImporter: CatalogImporter
    /// tus uploads received at `/api/v1/uploads`, in `<data folder>/uploads`.
    public let uploads: TusUploadStore
    /// Re-imports sources when their refresh interval has passed; `tuner serve` runs it.
    public let catalogScheduler: CatalogRefreshScheduler
    /// Probes channels' streams and records which are online.
    public let streamChecker: StreamChecker
    /// Downloads and uploads, in `<data folder>/tuner.sqlite` and `<data folder>/downloads`.
    /// Built here, run by ``runTransfers()`` (the server's transfer service).
    public let transfers: TransferManager
    /// The folders API requests may read local files from (uploads) and write into (exports).
    public let localFiles: LocalFileAccess
    /// The downloads' own client: it follows redirects, unlike the proxy's.
    let transfersHTTPClient: HTTPClient

    public init(configuration: TunerConfiguration, logger: Logger = Logger(label: "tuner")) throws {
        self.configuration = configuration
        self.logger = logger
        dataFolder = try DataFolder(path: configuration.dataDirectory)
        signer = StreamLinkSigner(key: try dataFolder.loadOrCreateSecret())
        localFiles = try LocalFileAccess(
            roots: (configuration.filesRoots ?? [dataFolder.path + "/files"]).map {
                $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0
            })
        httpClient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: MediaCache.httpClientConfiguration(
                readTimeoutSeconds: configuration.upstreamReadTimeoutSeconds))
        do {
            var cacheConfiguration = MediaCacheConfiguration(
                directory: dataFolder.cacheDirectory, maxBytes: configuration.cacheSize,
                minimumFreeDiskBytes: configuration.cacheMinimumFreeDisk,
                keyRules: CacheKeyRules(ignoredQueryParameters: configuration.cacheIgnoredQueryParameters),
                headTimeoutSeconds: configuration.upstreamTimeoutSeconds)
            cacheConfiguration.maxOpenFiles = configuration.cacheMaxOpenFiles
            cacheConfiguration.fetchPolicy = configuration.allowFetch
            cache = try MediaCache(configuration: cacheConfiguration, httpClient: httpClient, logger: logger)
        } catch {
            try? httpClient.syncShutdown()
            throw error
        }
        do {
            // One database for the catalog and the transfers (the cache keeps its own index).
            database = try dataFolder.openDatabase()
        } catch {
            try? httpClient.syncShutdown()
            throw error
        }
        do {
            uploads = try TusUploadStore(
                configuration: .init(
                    directory: dataFolder.uploadsDirectory, maxSize: configuration.uploadMaxSize,
                    incompleteLifetime: configuration.uploadExpirySeconds > 0 ? configuration.uploadExpirySeconds : nil),
                logger: logger)
        } catch {
            try? httpClient.syncShutdown()
            throw error
        }
        transfersHTTPClient = FileDownloadExecutor.makeHTTPClient()
        // Imports use the download client: providers redirect playlist and guide URLs (often to a CDN),
        // and that client follows redirects, dropping credentials when one leaves the origin. The
        // cache's client must not follow them itself (UpstreamClient does, to see the final URL).
        catalog = SQLiteCatalogStore(database: database, logger: logger)
        player = Player(catalog: catalog, signer: signer)
        catalogImporter = CatalogImporter(store: catalog, httpClient: transfersHTTPClient, logger: logger)
        catalogScheduler = CatalogRefreshScheduler(importer: catalogImporter, logger: logger)
        library = Library(
            catalog: catalog, importer: catalogImporter, localFiles: localFiles,
            defaultRefreshInterval: configuration.catalogDefaultRefreshSeconds, fetchPolicy: configuration.allowFetch)
        streamChecker = StreamChecker(store: catalog, logger: logger)
        do {
            let store = SQLiteTransferStore(database: database)
            transfers = try TransferManager(
                store: store, loadedTasks: try store.loadAllNow(), dataDirectory: dataFolder.path,
                configuration: configuration.transferManagerConfiguration, logger: logger)
        } catch {
            try? transfersHTTPClient.syncShutdown()
            try? httpClient.syncShutdown()
            throw error
        }
        streams = StreamService(
            cache: cache, signer: signer, prefetchCount: configuration.prefetchSegments, logger: logger)
        preloads = PreloadJobs(cache: cache, streams: streams, logger: logger)
    }

    /// A proxy URL for `url` with `headers` sent upstream, on the server at `baseURL`.
    public func proxyURL(for url: URL, headers: [StreamHeader] = [], baseURL: String) throws(StreamLinkError) -> String
    {
        try signer.proxyURL(for: StreamLink(url: url, headers: headers), baseURL: baseURL)
    }

    /// Registers the executors and runs the transfer manager until the calling task is
    /// cancelled; then active transfers commit their synced offsets and stop.
    public func runTransfers() async {
        for executor in TransferExecutors.standard(httpClient: transfersHTTPClient) {
            await transfers.register(executor)
        }
        await transfers.run()
    }

    /// Registers the executors and starts the transfer manager in the background (embedders
    /// without a service group); ``shutdown()`` stops it.
    public func startTransfers() async {
        for executor in TransferExecutors.standard(httpClient: transfersHTTPClient) {
            await transfers.register(executor)
        }
        await transfers.start()
    }

    /// Saves state and closes connections.
    public func shutdown() async throws {
        await transfers.shutdown()
        try? await transfersHTTPClient.shutdown()
        try await cache.shutdown()
        try await httpClient.shutdown()
    }
}
