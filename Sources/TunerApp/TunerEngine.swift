import AsyncHTTPClient
import Catalog
import Foundation
import LiveTV
import Logging
import MediaCache
import Outputs
import PostgresNIO
import Streaming
import Transfers
import TunerAPI
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
    /// Preloads and segment pre-fetches: tracked, cancelled and awaited by ``shutdown()``.
    public let background: BackgroundWork
    public let streams: StreamService
    /// The state: `<data folder>/tuner.sqlite`, or the database `--database` names (SQLite or
    /// PostgreSQL). Every store below is made from it; ``shutdown()`` closes a PostgreSQL pool.
    public let database: StateDatabase
    /// Sources, channels, guide and favourites, in ``database``.
    public let catalog: any CatalogStore
    /// Play and catch-up links (a feature object shared by the API, the CLI and the web app).
    public let player: Player
    /// Output profiles and what players read from them (M3U, XMLTV, HDHomeRun).
    public let outputs: OutputCenter
    /// The lineup editor: profiles' channels listed, filtered and changed; uploaded logos.
    public let lineupEditor: LineupEditor
    /// Sources: add, refresh, change, remove (a feature object, as `player`).
    public let library: Library
    /// Channels, films, series, episodes, groups, favourites and the guide, as users browse them.
    public let browse: Browse
    /// Downloads and uploads (a feature object over `transfers`).
    public let downloads: Downloads
    /// Statistics, clear, trim, preloads, export and pins (a feature object over `cache`).
    public let cacheAdmin: CacheAdmin
    public let catalogImporter: CatalogImporter
    /// tus uploads received at `/api/v1/uploads`, in `<data folder>/uploads`.
    public let uploads: TusUploadStore
    /// The uploads as the controllers use them (a feature object over ``uploads``).
    public let receivedUploads: Uploads
    /// Re-imports sources when their refresh interval has passed; `tuner serve` runs it.
    public let catalogScheduler: CatalogRefreshScheduler
    /// Probes channels' streams and records which are online.
    public let streamChecker: StreamChecker
    /// Downloads and uploads, in `<data folder>/tuner.sqlite` and `<data folder>/downloads`.
    /// Built here, run by ``runTransfers()`` (the server's transfer service).
    public let transfers: TransferManager
    /// The folders API requests may read local files from (uploads) and write into (exports).
    public let localFiles: LocalFileAccess
    /// Live channels: one upstream per channel shared by its viewers, and every stream limit.
    public let live: LiveSessions
    /// Live channels as the controllers use them (a feature object over ``live``).
    public let liveChannels: LiveChannels
    /// Time-shift: channels' windows as HLS and as a stream for browsers.
    public let timeshift: TimeshiftPlayback
    /// The stream proxy as the controllers use it (a feature object over ``streams`` and the signer).
    public let proxy: StreamProxy
    /// The live events the web app and `tuner watch` follow (fed by ``eventSources``).
    public let events: EventHub
    /// Idempotency keys of the API's commands: each applied once, across restarts too.
    public let commands: CommandJournal
    /// The access token beyond loopback (nil on loopback only), API keys and browser sessions.
    public let access: AccessControl
    /// Every credential check's limits (Xtream logins, tokens, keys, sign-ins): see ``LoginThrottle``.
    public let credentialThrottle = CredentialThrottle()
    /// The Xtream Codes output: logins, `player_api.php`, `get.php`, the guide and stream paths.
    public let xtream: XtreamPanel
    /// This node's cluster (`--node-id`): membership, shared secrets, live claims; nil alone.
    public let cluster: TunerCluster?
    /// Recordings and their rules (a feature object over the live sessions and the guide); the
    /// server runs it (``DVR/run(guideUpdates:)``).
    public let dvr: DVR
    /// The cluster's nodes as the front ends show them (a feature object over ``cluster``).
    public let clusterStatus: ClusterStatus
    /// The owner's access token: `--token`/`TUNER_TOKEN`, else the data folder's `token` file
    /// (made on first use). Nil when Tuner listens on loopback only.
    public let accessToken: String?
    /// Backups of the state, on request and on a schedule.
    public let backups: Backups
    /// Held shared while the engine lives: `tuner restore` waits for no one and refuses instead.
    let folderLock: DataFolderLock
    /// The downloads' own client: it follows redirects, unlike the proxy's.
    let transfersHTTPClient: HTTPClient
    /// The cache and what works on it, built and shut down as one (``openCache(configuration:logger:)``).
    let cacheParts: CacheParts

    /// Builds every part once. Every other way of opening a part (the CLI's offline commands) goes
    /// through the same factories: ``openCache(configuration:logger:)``,
    /// ``openCatalog(configuration:logger:)`` and
    /// ``openTransfers(configuration:database:managerConfiguration:logger:)``.
    public init(configuration: TunerConfiguration, logger: Logger = Logger(label: "tuner")) async throws {
        // First, before any part opens: a configured token is checked even on loopback only, so a
        // weak one never waits for the day Tuner listens on the network. (The token file Tuner
        // makes holds 192 random bits.)
        if let configured = configuration.accessToken { try TokenStrength.check(configured) }
        self.configuration = configuration
        self.logger = logger
        dataFolder = try DataFolder(path: configuration.dataDirectory)
        folderLock = try DataFolderLock(folder: dataFolder, exclusive: false)
        dataFolder.removeStaleImports(olderThan: configuration.importTimeoutSeconds)
        // One database for the catalog and the transfers (the cache keeps its own index). Opened
        // first: a cluster's nodes sign with the secrets kept there.
        let opened = try await Self.openState(configuration: configuration, dataFolder: dataFolder, logger: logger)
        do {
            cluster = try await Self.joinCluster(
                configuration: configuration, database: opened, dataFolder: dataFolder, logger: logger)
            signer = StreamLinkSigner(key: try cluster?.signingKey ?? dataFolder.loadOrCreateSecret())
            localFiles = try Self.localFileAccess(configuration: configuration, dataFolder: dataFolder)
            cacheParts = try Self.makeCacheParts(
                dataFolder: dataFolder, signer: signer, localFiles: localFiles, configuration: configuration,
                logger: logger)
        } catch {
            await Self.close(opened)
            throw error
        }
        database = opened
        let backupSource: StateBackup.Source =
            switch (opened, configuration.database) {
            case (.sqlite(let file), _): .sqlite(file)
            case (.postgres, let location?): .postgres(location)
            case (.postgres, nil): .postgres(.sqlite(path: dataFolder.databasePath))
            }
        backups = Backups(
            backup: StateBackup(
                source: backupSource, folder: dataFolder, settingsFile: configuration.settingsFile, logger: logger),
            directory: configuration.backupDirectory ?? dataFolder.path + "/backups",
            everySeconds: configuration.backupEverySeconds, keep: configuration.backupKeep, logger: logger)
        // A cluster's nodes number their events together: one epoch for all.
        events = EventHub(epoch: cluster?.eventsEpoch)
        cluster?.attach(events)
        httpClient = cacheParts.httpClient
        cache = cacheParts.cache
        background = cacheParts.background
        streams = cacheParts.streams
        proxy = StreamProxy(streams: cacheParts.streams, signer: signer)
        preloads = cacheParts.preloads
        cacheAdmin = cacheParts.admin
        // Imports and downloads use this client: providers redirect playlist and guide URLs (often to
        // a CDN), and it follows redirects, dropping credentials when one leaves the origin. The
        // cache's client must not follow them itself (UpstreamClient does, to see the final URL).
        transfersHTTPClient = FileDownloadExecutor.makeHTTPClient()
        do {
            let uploadLifetime = configuration.uploadExpirySeconds > 0 ? configuration.uploadExpirySeconds : nil
            uploads = try TusUploadStore(
                configuration: .init(
                    directory: dataFolder.uploadsDirectory, maxSize: configuration.uploadMaxSize,
                    incompleteLifetime: uploadLifetime),
                logger: logger)
            receivedUploads = Uploads(store: uploads)
            transfers = try await Self.makeTransferManager(
                dataFolder: dataFolder, database: database,
                configuration: configuration.transferManagerConfiguration, logger: logger)
        } catch {
            try? await transfersHTTPClient.shutdown()
            try? await cacheParts.shutdown()
            await cluster?.leave()
            await Self.close(opened)
            throw error
        }
        // The time-shift windows: the live sessions fill them, play links offer their catch-up.
        let windows = Timeshift(
            settings: configuration.live.timeshift, directory: dataFolder.path + "/timeshift", logger: logger)
        let catalogParts = Self.makeCatalogParts(
            database: database, httpClient: transfersHTTPClient, localFiles: localFiles, signer: signer,
            configuration: configuration, timeshift: windows, logger: logger)
        catalog = catalogParts.catalog
        catalogImporter = catalogParts.importer
        library = catalogParts.library
        browse = Browse(catalog: catalog)
        player = catalogParts.outputs.player
        outputs = catalogParts.outputs
        lineupEditor = LineupEditor(outputs: outputs, catalog: catalog, browse: browse, events: events)
        // Scheduled refreshes go through the library, so they report to the live events like the
        // ones a user asks for.
        catalogScheduler = CatalogRefreshScheduler(
            importer: catalogImporter, logger: logger,
            refresher: { [library] source in _ = try await library.refresh(sourceID: source.id) })
        streamChecker = catalogParts.checker
        live = LiveSessions(
            settings: configuration.live, catalog: catalog, signer: signer, fetchPolicy: configuration.fetchPolicy,
            workDirectory: dataFolder.path + "/live", cluster: cluster?.live,
            timeshift: windows, logger: logger)
        liveChannels = LiveChannels(sessions: live)
        timeshift = TimeshiftPlayback(live: live, catalog: catalog, logger: logger)
        dvr = DVR(
            database: database, catalog: catalog, live: live,
            directory: configuration.recordingsDirectory ?? dataFolder.path + "/recordings",
            minimumFreeBytes: configuration.cacheMinimumFreeDisk, logger: logger)
        clusterStatus = ClusterStatus(cluster: cluster, live: live, transfers: transfers, startedAt: Date())
        downloads = Downloads(transfers: transfers, localFiles: localFiles, fetchPolicy: configuration.fetchPolicy)
        commands = CommandJournal(database: database, logger: logger)
        accessToken =
            configuration.isLoopbackOnly
            ? nil : try configuration.accessToken ?? cluster?.token ?? dataFolder.loadOrCreateToken()
        access = AccessControl(database: database, ownerToken: accessToken, logger: logger)
        xtream = XtreamPanel(
            outputs: outputs, throttle: credentialThrottle, logger: logger, dvr: dvr,
            liveStreams: { [live] username in live.openStreams(user: username) })
        do {
            try await commands.prune()
        } catch {
            logger.warning("Cannot prune the command journal", metadata: ["error": "\(error)"])
        }
        // Players may ask for the default profile's lineup as soon as the server listens.
        do {
            try await outputs.ensureDefaultProfile()
        } catch {
            logger.warning("Cannot make the default output profile", metadata: ["error": "\(error)"])
        }
    }

    /// API keys and sessions of the data folder, for `tuner keys` beside (or without) a server: a
    /// key removed here stops working in the server at once (it looks keys up in the file).
    public static func openAccess(configuration: TunerConfiguration, logger: Logger) async throws -> AccessControl {
        let folder = try DataFolder(path: configuration.dataDirectory)
        return AccessControl(
            database: try await openState(configuration: configuration, dataFolder: folder, logger: logger),
            ownerToken: nil, logger: logger)
    }

    /// The catalog, its importer and a `Library` over them, for the CLI's commands beside (or
    /// without) a server: SQLite in WAL mode lets both use the file. The cache and the transfer
    /// queue are not opened: a running server owns them.
    public static func openCatalog(configuration: TunerConfiguration, logger: Logger) async throws -> CatalogParts {
        let folder = try DataFolder(path: configuration.dataDirectory)
        let httpClient = FileDownloadExecutor.makeHTTPClient()
        let signer: StreamLinkSigner
        let database: StateDatabase
        do {
            signer = StreamLinkSigner(key: try folder.loadOrCreateSecret())
            database = try await openState(configuration: configuration, dataFolder: folder, logger: logger)
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        // The user at the keyboard owns the local files a source names: no files root applies.
        return makeCatalogParts(
            database: database, httpClient: httpClient, localFiles: nil, signer: signer,
            configuration: configuration, logger: logger)
    }

    /// A transfer manager on the data folder's queue with the standard executors registered, not
    /// started, for the CLI's in-process `--wait` when no server runs.
    public static func openTransfers(
        configuration: TunerConfiguration, managerConfiguration: TransferManager.Configuration, logger: Logger
    ) async throws -> TransferParts {
        let folder = try DataFolder(path: configuration.dataDirectory)
        let database = try await openState(configuration: configuration, dataFolder: folder, logger: logger)
        let manager: TransferManager
        do {
            manager = try await makeTransferManager(
                dataFolder: folder, database: database, configuration: managerConfiguration, logger: logger)
        } catch {
            await close(database)
            throw error
        }
        let client = FileDownloadExecutor.makeHTTPClient()
        for executor in TransferExecutors.standard(httpClient: client) { await manager.register(executor) }
        return TransferParts(manager: manager, httpClient: client, database: database)
    }

    /// The media cache, the stream service over it, preloads and the cache's administration, for
    /// the CLI's `tuner cache` commands without a server: no database, catalog, transfer queue or
    /// live session is opened. (A running server owns the cache: the CLI talks to it instead.)
    public static func openCache(configuration: TunerConfiguration, logger: Logger) throws -> CacheParts {
        let folder = try DataFolder(path: configuration.dataDirectory)
        return try makeCacheParts(
            dataFolder: folder, signer: StreamLinkSigner(key: try folder.loadOrCreateSecret()),
            localFiles: try localFileAccess(configuration: configuration, dataFolder: folder),
            configuration: configuration, logger: logger)
    }

    /// The configured state database (`--database`; the data folder's SQLite file when unset),
    /// logged by its address without the password.
    static func openState(
        configuration: TunerConfiguration, dataFolder: DataFolder, logger: Logger
    ) async throws -> StateDatabase {
        let state: StateDatabase
        do {
            state = try await dataFolder.openStateDatabase(configuration.database, logger: logger)
        } catch {
            throw Self.openingFailure(error, location: configuration.database)
        }
        logger.info("State database: \(spoken(configuration.database, dataFolder: dataFolder))")
        return state
    }

    /// The nodes of the cluster on the configured PostgreSQL database, for `tuner cluster status`
    /// (no node is started; the rows are read as they are).
    public static func clusterNodes(
        configuration: TunerConfiguration, nodeTimeout: Double?, logger: Logger
    ) async throws -> ClusterAnswer {
        guard case .postgres = configuration.database else {
            throw FeatureError.invalid(
                "a cluster's nodes share one PostgreSQL database: name it with --database postgres://…")
        }
        let folder = try DataFolder(path: configuration.dataDirectory)
        let database = try await openState(configuration: configuration, dataFolder: folder, logger: logger)
        let nodes: [ClusterNodeInfo]
        do {
            guard case .postgres(let postgres) = database else { throw FeatureError.invalid("not PostgreSQL") }
            let timeout =
                nodeTimeout ?? configuration.cluster?.nodeTimeoutSeconds ?? ClusterSettings().nodeTimeoutSeconds
            nodes = try await ClusterStore(database: postgres, logger: logger).nodes(timeout: timeout)
        } catch {
            await close(database)
            throw error
        }
        await close(database)
        return ClusterAnswer(clustered: true, thisNode: "", nodes: nodes.map(ClusterStatus.answer))
    }

    /// Joins the cluster `configuration.cluster` names, on `database` (PostgreSQL); nil without one.
    static func joinCluster(
        configuration: TunerConfiguration, database: StateDatabase, dataFolder: DataFolder, logger: Logger
    ) async throws -> TunerCluster? {
        guard let settings = configuration.cluster else { return nil }
        guard case .postgres(let postgres) = database else {
            throw FeatureError.invalid("a cluster node keeps its state in PostgreSQL: give --database postgres://…")
        }
        return try await TunerCluster.join(
            settings: settings, database: postgres, dataFolder: dataFolder, logger: logger)
    }

    /// Closes a PostgreSQL pool (a SQLite database closes with its last reference).
    static func close(_ database: StateDatabase) async {
        if case .postgres(let postgres) = database { await postgres.close() }
    }

    /// Why the configured PostgreSQL database did not open, on one line naming its address
    /// (never the password) and what to check; other errors as they are.
    static func openingFailure(_ error: any Error, location: DatabaseLocation?) -> any Error {
        guard case .postgres(let address) = location else { return error }
        let reason: String
        switch error {
        case let error as StorageUnavailableError: reason = "no answer (\(error.reason))"
        case let error as PSQLError:
            // The server's own words ("password authentication failed for user …") name no secret.
            reason = error.serverInfo?[.message].map { "the server said: \($0)" } ?? "\(error.code)"
        case let error as FeatureError: return error
        default: reason = "\(error)"
        }
        return FeatureError(
            .unavailable,
            "Tuner cannot open its database \(spoken(address)): \(reason). Check that PostgreSQL runs there and "
                + "lets the role in (pg_hba.conf, the password), or leave --database unset for SQLite",
            retryAfterSeconds: FeatureError.unavailableRetrySeconds)
    }

    /// A PostgreSQL address for people, without the URL form whose user the log's and the command
    /// line's redaction would hide: `tuner on 10.0.0.5:5432 as tuner`.
    static func spoken(_ address: PostgresAddress) -> String {
        let host = address.host.contains(":") ? "[\(address.host)]" : address.host
        return "\(address.database) on PostgreSQL at \(host):\(address.port) as role \(address.username)"
    }

    /// A location for the log: the SQLite file, or the PostgreSQL address without its password.
    static func spoken(_ location: DatabaseLocation?, dataFolder: DataFolder) -> String {
        switch location {
        case nil: "SQLite at \(dataFolder.databasePath)"
        case .sqlite(let path): "SQLite at \(path)"
        case .postgres(let address): spoken(address)
        }
    }

    /// Which engine keeps the state, for the settings page: the engine only, since any signed-in
    /// key reads that page (a read key is no owner); the address is in the owner's log.
    public var databaseSummary: String {
        switch configuration.database {
        case nil: "SQLite, in the data folder"
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL (named in the server log)"
        }
    }

    private static func localFileAccess(
        configuration: TunerConfiguration, dataFolder: DataFolder
    ) throws -> LocalFileAccess {
        try LocalFileAccess(
            roots: (configuration.filesRoots ?? [dataFolder.path + "/files"]).map {
                $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0
            })
    }

    private static func makeCacheParts(
        dataFolder: DataFolder, signer: StreamLinkSigner, localFiles: LocalFileAccess,
        configuration: TunerConfiguration, logger: Logger
    ) throws -> CacheParts {
        let httpClient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: MediaCache.httpClientConfiguration(
                readTimeoutSeconds: configuration.upstreamReadTimeoutSeconds))
        let cache: MediaCache
        do {
            var cacheConfiguration = MediaCacheConfiguration(
                directory: dataFolder.cacheDirectory, maxBytes: configuration.cacheSize,
                minimumFreeDiskBytes: configuration.cacheMinimumFreeDisk,
                keyRules: CacheKeyRules(ignoredQueryParameters: configuration.cacheIgnoredQueryParameters),
                headTimeoutSeconds: configuration.upstreamTimeoutSeconds)
            cacheConfiguration.maxOpenFiles = configuration.cacheMaxOpenFiles
            cacheConfiguration.fetchPolicy = configuration.fetchPolicy
            cache = try MediaCache(configuration: cacheConfiguration, httpClient: httpClient, logger: logger)
        } catch {
            try? httpClient.syncShutdown()
            throw error
        }
        let background = BackgroundWork()
        let streams = StreamService(
            cache: cache, signer: signer, prefetchCount: configuration.prefetchSegments, work: background,
            logger: logger)
        let preloads = PreloadJobs(cache: cache, streams: streams, work: background, logger: logger)
        let admin = CacheAdmin(
            cache: cache, streams: streams, preloads: preloads, localFiles: localFiles,
            fetchPolicy: configuration.fetchPolicy)
        return CacheParts(
            cache: cache, streams: streams, preloads: preloads, admin: admin, background: background,
            httpClient: httpClient)
    }

    private static func makeCatalogParts(
        database: StateDatabase, httpClient: HTTPClient, localFiles: LocalFileAccess?, signer: StreamLinkSigner,
        configuration: TunerConfiguration, timeshift: Timeshift? = nil, logger: Logger
    ) -> CatalogParts {
        let catalog = database.catalogStore(logger: logger)
        // Playlists, guides (those a playlist names too) and Xtream APIs: every hop passes the policy.
        var importerConfiguration = configuration.importerConfiguration
        importerConfiguration.fetchPolicy = configuration.fetchPolicy
        let importer = CatalogImporter(
            store: catalog, httpClient: httpClient, configuration: importerConfiguration, logger: logger)
        let player = Player(
            catalog: catalog, signer: signer, fetchPolicy: configuration.fetchPolicy, timeshift: timeshift)
        let outputs = OutputCenter(
            store: OutputStore(database: database, catalog: catalog, logger: logger), player: player, catalog: catalog,
            importer: importer, placeholders: configuration.guidePlaceholders)
        var checkerConfiguration = StreamChecker.Configuration()
        checkerConfiguration.fetchPolicy = configuration.fetchPolicy
        let checker = StreamChecker(store: catalog, configuration: checkerConfiguration, logger: logger)
        let library = Library(
            catalog: catalog, importer: importer, localFiles: localFiles,
            defaultRefreshInterval: configuration.catalogDefaultRefreshSeconds, fetchPolicy: configuration.fetchPolicy,
            afterImport: { try? await outputs.recordNumbers() }, checker: checker)
        return CatalogParts(
            catalog: catalog, importer: importer, library: library, outputs: outputs, checker: checker,
            httpClient: httpClient, database: database)
    }

    private static func makeTransferManager(
        dataFolder: DataFolder, database: StateDatabase, configuration: TransferManager.Configuration,
        logger: Logger
    ) async throws -> TransferManager {
        try await TransferManager(
            store: database.transferStore(logger: logger), dataDirectory: dataFolder.path,
            configuration: configuration, logger: logger)
    }

    /// A proxy URL for `url` with `headers` sent upstream, on the server at `baseURL`.
    public func proxyURL(for url: URL, headers: [StreamHeader] = [], baseURL: String) throws(FeatureError) -> String {
        try FeatureError.streaming { () throws(StreamError) in
            try signer.proxyURL(for: StreamLink(url: url, headers: headers), baseURL: baseURL)
        }
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

    /// What feeds ``events``: the server runs it while it serves.
    public var eventSources: EventSources {
        EventSources(
            hub: events, downloads: downloads, cacheAdmin: cacheAdmin, library: library, live: live, dvr: dvr)
    }

    /// Runs the DVR until the calling task is cancelled: it plans again whenever a source's guide
    /// is imported.
    public func runRecordings() async {
        let changes = library.changes()
        let (updates, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await change in changes {
                    if case .guideUpdated = change { continuation.yield() }
                }
                continuation.finish()
            }
            await dvr.run(guideUpdates: updates)
            group.cancelAll()
        }
    }

    /// Saves state and closes connections.
    public func shutdown() async throws {
        await live.shutdown()
        await live.closeClient()
        await transfers.shutdown()
        try? await transfersHTTPClient.shutdown()
        try await cacheParts.shutdown()
        await cluster?.leave()
        // Last: everything above may still have written its state.
        await Self.close(database)
    }
}
