import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MediaCache
import NIOCore
import ServiceLifecycle
import Streaming
import Synchronization
import TunerApp
import UnixSignals

/// Tuner's HTTP front end: the stream proxy and the JSON API, on Hummingbird.
///
/// `tuner serve` runs it until a signal arrives; apps embed it with ``start(configuration:logger:)``
/// and ``stop()``.
public final class TunerServer: Sendable {
    public let engine: TunerEngine
    private let state = Mutex<RunState>(RunState())

    struct RunState {
        var port: Int?
        var group: ServiceGroup?
        var task: Task<Void, any Error>?
        /// The routes the application was built with.
        var routes: [RouteLedger<TunerRequestContext>.Route] = []
    }

    public init(engine: TunerEngine) {
        self.engine = engine
    }

    /// The routes (method and path) of the running server, for the tests that hold them against
    /// the endpoint table.
    var routes: [RouteLedger<TunerRequestContext>.Route] { state.withLock { $0.routes } }

    /// The port the server listens on, once it runs.
    public var port: Int? { state.withLock { $0.port } }

    /// `http://host:port` of the running server.
    public var baseURL: String {
        let host = engine.configuration.host
        let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
        return "http://\(shown):\(port ?? engine.configuration.port)"
    }

    /// A proxy URL for `url` on this server; `headers` are sent upstream with every fetch.
    public func proxyURL(for url: URL, headers: [String: String] = [:]) throws -> URL {
        let text = try engine.proxyURL(
            for: url, headers: StreamHeader.list(headers), baseURL: baseURL)
        guard let proxied = URL(string: text) else {
            throw FeatureError.invalid("cannot form a proxy URL for \(url)")
        }
        return proxied
    }

    /// The `Server` header of every answer.
    static let serverName = "Tuner"

    /// Builds the application: routes, middleware and the cache's maintenance service.
    func buildApplication(onListening: @escaping @Sendable (Int) async -> Void) throws -> some Service {
        let router = Router(context: TunerRequestContext.self)
        let configuration = engine.configuration
        let token = engine.accessToken
        let maxUploadSize = engine.uploads.configuration.maxSize
        let requestGuard = RequestGuardMiddleware(
            token: token, access: engine.access,
            publicHosts: Set(configuration.publicHosts.map { $0.lowercased() }),
            allowedOrigins: Set(configuration.allowedOrigins.map { $0.lowercased() }),
            uploadOrigins: Set(configuration.uploadAllowedOrigins.map { $0.lowercased() }),
            throttle: engine.credentialThrottle, cluster: engine.cluster, trustedProxies: configuration.trustedProxies)
        let requestMetrics = RequestMetricsMiddleware()
        // In this order, for the router and for the stream proxy's own path (StreamResponder).
        let middleware: [any MiddlewareProtocol<Request, Response, TunerRequestContext>] = [
            // First, so that everything but the stream proxy runs where it did before connections
            // preferred their event loops (see RouteExecutorMiddleware).
            RouteExecutorMiddleware(),
            // What the layers before the routes' own error middleware let through (a key or a
            // command journal the database cannot answer for: 503) answers in the same shape.
            RedactingErrorMiddleware(),
            // Before the token check: browsers send CORS preflights without credentials.
            UploadsCORSMiddleware(
                allowedOrigins: engine.configuration.uploadAllowedOrigins,
                capabilities: { UploadsController.capabilities(maxSize: maxUploadSize) }),
            requestGuard,
            // Behind the guard, outside the error middleware: a resent command gets its first answer.
            IdempotencyMiddleware(journal: engine.commands),
            // Provider bytes are inert in a browser; outside the error middleware, so the errors
            // it answers are already redacted.
            ProviderBytesMiddleware(),
            RedactingErrorMiddleware(),
            // Requests by route and status, and their durations, into swift-metrics (see ProcessMetrics).
            requestMetrics,
        ]
        for layer in middleware { router.add(middleware: layer) }
        // Every route is written down on its way to the router (see RouteLedger).
        let routes = RouteLedger(router: router)
        let streams = StreamController(engine: engine, fallbackBaseURL: { [self] in baseURL })
        streams.addRoutes(to: routes)
        APIController(engine: engine, fallbackBaseURL: { [self] in baseURL }).addRoutes(to: routes)
        CatalogController(engine: engine, fallbackBaseURL: { [self] in baseURL }).addRoutes(to: routes)
        let uploads = UploadsController(
            uploads: engine.receivedUploads, fallbackBaseURL: { [self] in baseURL }, logger: engine.logger)
        uploads.addRoutes(to: routes)
        TransfersController(downloads: engine.downloads).addRoutes(to: routes)
        var outputs = OutputController(engine: engine, token: token, fallbackBaseURL: { [self] in baseURL })
        outputs.rootOpen = configuration.hdhomerunOpen
        outputs.addRoutes(to: routes)
        XtreamController(engine: engine, fallbackBaseURL: { [self] in baseURL }).addRoutes(to: routes)
        LiveController(engine: engine).addRoutes(to: routes)
        ClusterController(engine: engine).addRoutes(to: routes)
        RecordingsController(dvr: engine.dvr).addRoutes(to: routes)
        TimeshiftController(timeshift: engine.timeshift).addRoutes(to: routes)
        MetricsController(engine: engine).addRoutes(to: routes)
        EventsController(engine: engine).addRoutes(to: routes)
        AccessController(access: engine.access, throttle: engine.credentialThrottle).addRoutes(to: routes)
        BackupsController(backups: engine.backups).addRoutes(to: routes)
        LineupController(
            editor: engine.lineupEditor, fallbackBaseURL: { [self] in baseURL },
            configuredBaseURL: engine.configuration.baseURL
        ).addRoutes(to: routes)
        // Last: the web app takes the paths nothing above claims (its 404 page wraps only what follows).
        PagesController(engine: engine, fallbackBaseURL: { [self] in baseURL }).addRoutes(to: routes)
        state.withLock { $0.routes = routes.routes }
        // Warm stream answers are given on the event loop, by the same guard, signer, cache and
        // metrics (see StreamFastPath).
        let fastPath = StreamFastPath(
            requestGuard: requestGuard, signer: engine.signer, streams: engine.streams,
            metrics: requestMetrics.store, serverName: Self.serverName)
        // Request heads are bounded (NIO's decoder: 80 KiB per field and in all, here at most 200
        // fields) and a connection that sends no complete request within the idle timeout is
        // closed, so slow or endless headers cannot hold connections or memory.
        let idleTimeout = TimeAmount.nanoseconds(Int64(configuration.idleTimeoutSeconds * 1_000_000_000))
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StreamFastPathInstaller(fastPath: fastPath)],
            idleTimeout: idleTimeout,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: 80 * 1024, maxHeaderListSize: 80 * 1024, maxHeaderFieldCount: 200))
        var discovery: [any Service] = []
        if configuration.hdhomerunHTTPPort > 0 {
            // Only the default profile's HDHomeRun files (and `/auto/v…`), behind the same guard but
            // with no key: Jellyfin and Plex come here knowing only the address, and the files' URLs
            // (pointing at the main port) carry the key, as discovery's reply does.
            let small = Router(context: TunerRequestContext.self)
            small.add(
                middleware: RequestGuardMiddleware(
                    token: token, access: engine.access,
                    publicHosts: Set(configuration.publicHosts.map { $0.lowercased() }),
                    allowedOrigins: Set(configuration.allowedOrigins.map { $0.lowercased() }),
                    uploadOrigins: [], throttle: engine.credentialThrottle,
                    trustedProxies: configuration.trustedProxies))
            small.add(middleware: RedactingErrorMiddleware())
            var device = OutputController(engine: engine, token: token, fallbackBaseURL: { [self] in baseURL })
            device.mainPort = { [self] in self.state.withLock { $0.port } }
            device.rootOpen = true
            device.addRootRoutes(to: small)
            discovery.append(
                OptionalService(
                    name: "HDHomeRun HTTP on port \(configuration.hdhomerunHTTPPort)", logger: engine.logger,
                    service: Application(
                        router: small, server: .http1(configuration: http1),
                        configuration: .init(
                            address: .hostname(configuration.host, port: configuration.hdhomerunHTTPPort),
                            serverName: "Tuner"),
                        logger: engine.logger)))
        }
        if configuration.ssdpPort > 0 {
            discovery.append(
                SSDPService(
                    engine: engine, port: configuration.ssdpPort, token: token,
                    httpPort: { [self] in self.state.withLock { $0.port } }))
        }
        if configuration.hdhomerunDiscoveryPort > 0 {
            discovery.append(
                HDHomeRunDiscoveryService(
                    engine: engine, port: configuration.hdhomerunDiscoveryPort, token: token,
                    httpPort: { [self] in self.state.withLock { $0.port } }))
        }
        let clusterServices: [any Service] =
            engine.cluster.map { [ClusterService(cluster: $0, status: engine.clusterStatus, events: engine.events)] }
            ?? []
        // The same router answers WebSocket upgrades (only /api/v1/events has one), behind the same
        // guard. Pings every 15 s; a peer that leaves one unanswered until the next is closed.
        let webSocket = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: http1, ws: .init(maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: .seconds(15))))
        return TunerHTTPApplication(
            responder: StreamResponder(fallback: router.buildResponder(), middleware: middleware, streams: streams),
            webSocketResponder: router.buildResponder(), webSocket: webSocket, fastPath: fastPath,
            idleTimeout: idleTimeout, acceptsHost: { requestGuard.accepts(host: $0) },
            host: engine.configuration.host, port: engine.configuration.port, serverName: Self.serverName,
            services: [
                CacheMaintenanceService(cache: engine.cache), CatalogRefreshService(engine: engine),
                RecordingService(engine: engine), BackupService(engine: engine),
                TransferService(engine: engine),
                UploadExpiryService(store: engine.uploads), OutputNumberingService(engine: engine),
                CacheHistoryService(admin: engine.cacheAdmin),
                EventsService(engine: engine),
            ] + discovery + clusterServices,
            onServerRunning: { [self, engine] channel in
                let port = channel.localAddress?.port ?? 0
                self.state.withLock { $0.port = port }
                engine.live.setLocalBaseURL(self.baseURL)
                await onListening(port)
            },
            logger: engine.logger
        )
    }

    /// Runs until one of `signals` arrives (or ``stop()`` is called), then shuts down gracefully.
    public func run(shutdownSignals: [UnixSignal] = [], onListening: @escaping @Sendable (Int) async -> Void = { _ in })
        async throws
    {
        let app = try buildApplication(onListening: onListening)
        // Services shut down in reverse order: live sessions end first, so their viewers' endless
        // answers finish and the HTTP server's graceful shutdown does not wait for them forever.
        let group = ServiceGroup(
            configuration: .init(
                services: [app, LiveShutdownService(engine: engine)], gracefulShutdownSignals: shutdownSignals,
                logger: engine.logger))
        state.withLock { $0.group = group }
        defer { state.withLock { $0.group = nil } }
        do {
            try await group.run()
        } catch {
            try? await engine.shutdown()
            throw error
        }
        try await engine.shutdown()
    }

    /// Starts a server in the background (on a free port when the configuration says port 0)
    /// and returns once it accepts connections.
    public static func start(configuration: TunerConfiguration, logger: Logger = Logger(label: "tuner")) async throws
        -> TunerServer
    {
        let server = TunerServer(engine: try await TunerEngine(configuration: configuration, logger: logger))
        let listening = AsyncStream<Int>.makeStream()
        let task = Task {
            do {
                try await server.run { port in listening.continuation.yield(port) }
            } catch {
                listening.continuation.finish()
                throw error
            }
            listening.continuation.finish()
        }
        server.state.withLock { $0.task = task }
        for await _ in listening.stream { return server }
        try await task.value
        throw FeatureError(.failed, "the server stopped before it listened; its log says why")
    }

    /// Stops a server started with ``start(configuration:logger:)`` and waits for it to finish.
    public func stop() async throws {
        let (group, task) = state.withLock { ($0.group, $0.task) }
        await group?.triggerGracefulShutdown()
        try await task?.value
    }
}

/// Feeds the events hub from the feature objects while the server runs.
struct EventsService: Service {
    let engine: TunerEngine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await engine.eventSources.run()
        }
    }
}

/// Writes this node's heartbeat and carries its events through the cluster's log while the
/// server runs; leaves the cluster when it stops.
struct ClusterService: Service {
    let cluster: TunerCluster
    let status: ClusterStatus
    let events: EventHub

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await cluster.run(load: { await status.load() }) }
                group.addTask { await cluster.runEvents(hub: events) }
            }
        }
    }
}

/// Ends every live session when the server begins to shut down (see `run`).
struct LiveShutdownService: Service {
    let engine: TunerEngine

    func run() async throws {
        try? await gracefulShutdown()
        await engine.live.shutdown()
    }
}

/// Saves the cache's access times and counters periodically and at shutdown.
struct CacheMaintenanceService: Service {
    let cache: MediaCache

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await cache.run()
        }
    }
}

/// Runs the DVR while the server runs; in a cluster on one node at a time (a lease of its own),
/// so a programme is never recorded by two nodes.
struct RecordingService: Service {
    let engine: TunerEngine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            if let cluster = engine.cluster {
                await cluster.whileScheduling(lease: 2, what: "recordings") { await engine.runRecordings() }
            } else {
                await engine.runRecordings()
            }
        }
    }
}

/// Writes the scheduled backups (`--backup-every`) while the server runs; in a cluster on one
/// node at a time (a lease of its own), so the shared state is backed up once per period.
struct BackupService: Service {
    let engine: TunerEngine

    func run() async throws {
        guard engine.configuration.backupEverySeconds != nil else {
            // Nothing to do: wait for the shutdown (a service that returns would stop the server).
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            if let cluster = engine.cluster {
                await cluster.whileScheduling(lease: 3, what: "scheduled backups") {
                    await engine.backups.runSchedule()
                }
            } else {
                await engine.backups.runSchedule()
            }
        }
    }
}

/// Runs the catalog's scheduled source refreshes while the server runs.
struct CatalogRefreshService: Service {
    let engine: TunerEngine

    func run() async throws {
        let seconds = engine.configuration.catalogRefreshCheckSeconds
        guard let cluster = engine.cluster, seconds > 0 else { return try await runAlone() }
        // In a cluster one node at a time schedules refreshes; the others wait for its lease.
        // Interrupted refreshes are not reset here: another node may be running one right now.
        await cancelWhenGracefulShutdown {
            await cluster.whileScheduling {
                await engine.catalogScheduler.run(checkEvery: .seconds(seconds))
            }
        }
    }

    private func runAlone() async throws {
        // A refresh the last server was running when it stopped left its source `refreshing`,
        // which the scheduler skips for ever; this server owns the data folder now.
        do {
            let recovered = try await engine.library.recoverInterruptedRefreshes()
            if recovered > 0 {
                engine.logger.notice(
                    "Sources interrupted mid-refresh marked failed", metadata: ["count": "\(recovered)"])
            }
        } catch {
            engine.logger.warning("Cannot reset interrupted refreshes", metadata: ["error": "\(error)"])
        }
        let seconds = engine.configuration.catalogRefreshCheckSeconds
        guard seconds > 0 else {
            // Nothing to do, but a service that returns early would stop the server.
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            await engine.catalogScheduler.run(checkEvery: .seconds(seconds))
        }
    }
}
