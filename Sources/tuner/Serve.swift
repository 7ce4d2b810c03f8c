import ArgumentParser
import CAllocatorTuning
import Foundation
import Logging
import MediaFormats
import TunerApp
import TunerServer

/// `tuner serve`: runs the proxy and API until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the stream proxy and the API.")

    @Option(help: "Address to listen on (env TUNER_HOST). Anything but loopback requires the access token.")
    var host: String?
    @Option(help: "Port (env TUNER_PORT); 0 picks a free one and prints it.")
    var port: Int?
    @OptionGroup var dataOptions: DataOptions
    @Option(name: .customLong("cache-size"), help: "Cache budget, e.g. 1GiB (env TUNER_CACHE_SIZE).")
    var cacheSize: String?
    @Option(
        name: .customLong("cache-min-free"),
        help: "Free disk space the cache leaves, e.g. 256MiB (env TUNER_CACHE_MIN_FREE).")
    var cacheMinFree: String?
    @Option(
        name: .customLong("cache-ignore-param"),
        help: "Query parameter left out of cache keys (repeatable; env TUNER_CACHE_IGNORE_PARAMS=a,b).")
    var cacheIgnoreParams: [String] = []
    @Option(
        name: .customLong("upstream-timeout"),
        help: "Seconds to wait for an origin's answer before 504 (env TUNER_UPSTREAM_TIMEOUT).")
    var upstreamTimeout: Int64?
    @Option(
        name: .customLong("prefetch-segments"),
        help: "HLS segments fetched ahead of the player; 0 turns it off (env TUNER_PREFETCH_SEGMENTS, default 3).")
    var prefetchSegments: Int?
    @Option(
        name: .customLong("hdhomerun-discovery-port"),
        help:
            """
            UDP port answering HDHomeRun discovery, as Plex, Jellyfin and hdhomerun_config ask it; 0 turns it \
            off (env TUNER_HDHOMERUN_DISCOVERY_PORT, default 65001).
            """)
    var hdhomerunDiscoveryPort: Int?
    @Option(
        name: .customLong("hdhomerun-http-port"),
        help:
            """
            A second port serving the default profile's HDHomeRun files with no key, e.g. 80, where Jellyfin and \
            Plex look after discovery (env TUNER_HDHOMERUN_HTTP_PORT; port 80 needs root or CAP_NET_BIND_SERVICE).
            """)
    var hdhomerunHttpPort: Int?
    @Flag(
        name: .customLong("hdhomerun-open"),
        help:
            """
            The main port's root HDHomeRun files answer without the profile's key beyond localhost, as Jellyfin \
            and Plex read them (env TUNER_HDHOMERUN_OPEN=on): anyone on the LAN gets the lineup and its streams.
            """)
    var hdhomerunOpen = false
    @Option(
        name: .customLong("ssdp-port"),
        help:
            """
            UDP port answering UPnP (SSDP) searches for media servers; 0 turns it off (env TUNER_SSDP_PORT, \
            default 1900).
            """)
    var ssdpPort: Int?
    @Option(
        name: .customLong("guide-placeholders"),
        help: "on or off: hour-long programmes for channels without a guide in the XMLTV outputs (default on).")
    var guidePlaceholders: String?
    @Option(
        name: .customLong("live-buffer"),
        help: "Recent stream each live session keeps for joining and slow viewers, e.g. 8MiB (default 4MiB).")
    var liveBuffer: String?
    @Option(
        name: .customLong("live-linger"),
        help: "How long a live session stays open after its last viewer left, e.g. 30s (default 5s).")
    var liveLinger: String?
    @Option(
        name: .customLong("live-stall-timeout"),
        help: "Seconds without bytes before a live channel switches to its next alternative (default 5).")
    var liveStallTimeout: String?
    @Option(
        name: .customLong("live-preempt"),
        help: "on or off: when every account is in use, stop the lowest-priority session (default off).")
    var livePreempt: String?
    @Option(
        name: .customLong("transcode-args"),
        help: "ffmpeg options of the transcode profile, between input and output (default H.264/AAC 720p).")
    var transcodeArgs: String?
    @Option(
        name: .customLong("base-url"),
        help: "How players reach Tuner behind a reverse proxy, e.g. https://tv.example (env TUNER_BASE_URL).")
    var baseUrl: String?
    @Option(
        name: .customLong("upload-expiry"),
        help:
            """
            Unfinished tus uploads are removed after this long without bytes, e.g. 24h, 30m; 0 keeps them (env \
            TUNER_UPLOAD_EXPIRY, default 24h).
            """
    )
    var uploadExpiry: String?
    @Option(
        name: .customLong("upload-origin"),
        help:
            """
            An origin whose web pages may upload (CORS), e.g. https://app.example; * allows any (repeatable; env \
            TUNER_UPLOAD_ORIGINS=a,b; default none).
            """
    )
    var uploadOrigins: [String] = []
    @Option(
        name: .customLong("public-host"),
        help:
            """
            A host name this Tuner answers to besides its IP addresses and localhost, e.g. tuner.home.arpa \
            (repeatable; env TUNER_PUBLIC_HOSTS=a,b).
            """
    )
    var publicHosts: [String] = []
    @Option(
        name: .customLong("trusted-proxy"),
        help:
            """
            A load balancer's address or network (10.0.0.30, 10.0.0.0/24) whose X-Forwarded-For names the \
            player (repeatable; env TUNER_TRUSTED_PROXIES=a,b).
            """
    )
    var trustedProxies: [String] = []
    @Option(
        name: .customLong("allow-fetch"),
        help:
            """
            Where the server may connect, every hop checked on its resolved addresses: presets any, loopback \
            (this machine only) and remote (anywhere but this machine), and rules like 127.0.0.1:8096, \
            10.0.0.0/8 or provider.example, comma-separated. Default: any on loopback only, remote beyond it \
            (env TUNER_ALLOW_FETCH).
            """
    )
    var allowFetch: String?
    @Option(
        name: .customLong("allow-origin"),
        help:
            """
            An origin whose web pages may change things through the API, e.g. https://app.example (repeatable; \
            env TUNER_ALLOWED_ORIGINS=a,b; default none).
            """
    )
    var allowedOrigins: [String] = []
    @Option(
        name: .customLong("files-root"),
        help:
            """
            A folder API requests may upload local files from and export into (repeatable; env \
            TUNER_FILES_ROOTS=a,b; default <data>/files).
            """
    )
    var filesRoots: [String] = []
    @Option(
        name: .customLong("idle-timeout"),
        help:
            """
            Close a connection idle (or still sending its request head) this long, e.g. 60 or 2m (env \
            TUNER_IDLE_TIMEOUT, default 60).
            """
    )
    var idleTimeout: String?
    @Option(
        name: .customLong("catalog-check-interval"),
        help:
            """
            How often to look for catalog sources due for refresh, e.g. 60 or 5m; 0 turns scheduled refreshes off \
            (env TUNER_CATALOG_CHECK_INTERVAL, default 60).
            """
    )
    var catalogCheckInterval: String?
    @Option(
        name: .customLong("catalog-refresh-interval"),
        help:
            """
            Refresh interval of sources added without one, e.g. 6h or 1d (env TUNER_CATALOG_REFRESH_INTERVAL, \
            default 1d).
            """
    )
    var catalogRefreshInterval: String?
    @Option(
        name: .customLong("import-max-size"),
        help: "The largest playlist or guide an import reads, e.g. 4GiB (env TUNER_IMPORT_MAX_SIZE, default 2GiB).")
    var importMaxSize: String?
    @Option(
        name: .customLong("import-timeout"),
        help:
            """
            How long a playlist or guide download, or reading a local one, may take, e.g. 600 or 30m (env \
            TUNER_IMPORT_TIMEOUT, default 10m).
            """
    )
    var importTimeout: String?
    @Option(
        name: .customLong("provider-answer-max-size"),
        help:
            """
            The largest Xtream panel answer held in memory, e.g. 512MiB (env TUNER_PROVIDER_ANSWER_MAX_SIZE, \
            default 256MiB).
            """
    )
    var providerAnswerMaxSize: String?
    @Option(
        name: .customLong("downloads-dir"),
        help:
            """
            Where downloads go (env TUNER_DOWNLOADS_DIR, default <data>/downloads); a cluster's nodes share one, \
            so one resumes another's download where it stopped.
            """)
    var downloadsDir: String?
    @Option(
        name: .customLong("timeshift"),
        help:
            """
            Which channels keep a time-shift window on disk while they play: off, favourites or all \
            (env TUNER_TIMESHIFT, default off).
            """)
    var timeshift: String?
    @Option(
        name: .customLong("timeshift-window"),
        help: "How much of a channel its time-shift window keeps, e.g. 2h (env TUNER_TIMESHIFT_WINDOW, default 1h).")
    var timeshiftWindow: String?
    @Option(
        name: .customLong("timeshift-max-size"),
        help:
            """
            The most disk one channel's time-shift window takes, e.g. 8GiB (env TUNER_TIMESHIFT_MAX_SIZE, \
            default 4GiB).
            """)
    var timeshiftMaxSize: String?
    @Option(
        name: .customLong("recordings-dir"),
        help: "Where recordings go (env TUNER_RECORDINGS_DIR, default <data>/recordings).")
    var recordingsDir: String?
    @Option(
        name: .customLong("transfers-claim-lifetime"),
        help:
            """
            How long a node's claim on a running transfer lasts unrenewed: another node takes a dead one's \
            transfers over after it (env TUNER_TRANSFERS_CLAIM_LIFETIME, default 60s).
            """)
    var transfersClaimLifetime: String?
    @Option(
        name: .customLong("node-id"),
        help:
            """
            Join a cluster as this node (with --database postgres://… and --advertise): a name unique in the \
            cluster (env TUNER_NODE_ID).
            """)
    var nodeId: String?
    @Option(
        name: .customLong("advertise"),
        help: "Where the cluster's other nodes reach this one, e.g. http://10.0.0.2:8080 (env TUNER_ADVERTISE).")
    var advertise: String?
    @Option(
        name: .customLong("heartbeat-interval"),
        help: "Seconds between a cluster node's heartbeats (env TUNER_HEARTBEAT_INTERVAL, default 1).")
    var heartbeatInterval: String?
    @Option(
        name: .customLong("node-timeout"),
        help: "A node whose heartbeat is older is gone from the cluster (env TUNER_NODE_TIMEOUT, default 5s).")
    var nodeTimeout: String?
    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error (env TUNER_LOG_LEVEL or LOG_LEVEL, default info).")
    var logLevel: String?

    /// The options given, by setting name; repeatable ones joined with commas.
    var flags: [String: String] {
        typealias Setting = TunerConfiguration.Setting
        var flags: [Setting: String] = [:]
        flags[.host] = host
        flags[.port] = port.map(String.init)
        flags[.cacheSize] = cacheSize
        flags[.cacheMinFree] = cacheMinFree
        flags[.upstreamTimeout] = upstreamTimeout.map(String.init)
        flags[.prefetchSegments] = prefetchSegments.map(String.init)
        flags[.hdhomerunDiscoveryPort] = hdhomerunDiscoveryPort.map(String.init)
        flags[.hdhomerunHttpPort] = hdhomerunHttpPort.map(String.init)
        flags[.hdhomerunOpen] = hdhomerunOpen ? "on" : nil
        flags[.baseUrl] = baseUrl
        flags[.ssdpPort] = ssdpPort.map(String.init)
        flags[.guidePlaceholders] = guidePlaceholders
        flags[.liveBuffer] = liveBuffer
        flags[.liveLinger] = liveLinger
        flags[.liveStallTimeout] = liveStallTimeout
        flags[.livePreempt] = livePreempt
        flags[.transcodeArgs] = transcodeArgs
        flags[.uploadExpiry] = uploadExpiry
        flags[.allowFetch] = allowFetch
        flags[.idleTimeout] = idleTimeout
        flags[.catalogCheckInterval] = catalogCheckInterval
        flags[.catalogRefreshInterval] = catalogRefreshInterval
        flags[.importMaxSize] = importMaxSize
        flags[.importTimeout] = importTimeout
        flags[.providerAnswerMaxSize] = providerAnswerMaxSize
        flags[.logLevel] = logLevel
        flags[.nodeId] = nodeId
        flags[.downloadsDir] = downloadsDir.map { URL(fileURLWithPath: $0).path }
        flags[.recordingsDir] = recordingsDir.map { URL(fileURLWithPath: $0).path }
        flags[.timeshift] = timeshift
        flags[.timeshiftWindow] = timeshiftWindow
        flags[.timeshiftMaxSize] = timeshiftMaxSize
        flags[.transfersClaimLifetime] = transfersClaimLifetime
        flags[.advertise] = advertise
        flags[.heartbeatInterval] = heartbeatInterval
        flags[.nodeTimeout] = nodeTimeout
        let lists: [Setting: [String]] = [
            .cacheIgnoreParams: cacheIgnoreParams, .uploadOrigins: uploadOrigins, .publicHosts: publicHosts,
            .trustedProxies: trustedProxies,
            .allowedOrigins: allowedOrigins, .filesRoots: filesRoots.map { URL(fileURLWithPath: $0).path },
        ]
        for (setting, values) in lists where !values.isEmpty { flags[setting] = values.joined(separator: ",") }
        return Dictionary(uniqueKeysWithValues: flags.map { ($0.key.rawValue, $0.value) })
    }

    func run() async throws {
        var configuration: TunerConfiguration
        do {
            configuration = try await dataOptions.configuration(flags: flags)
        } catch let error as FeatureError where error.kind == .invalid {
            throw ValidationError(error.description)
        }
        let logLevel = configuration.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            // Provider passwords and tokens in URLs never reach the log.
            return RedactingLogHandler(wrapping: handler)
        }
        // swift-metrics into the Prometheus registry that /metrics serves.
        ProcessMetrics.bootstrap()
        tuneMemoryAllocator()
        let descriptors = raiseDescriptorLimit()
        if let descriptors {
            // Cache files get a quarter of the descriptors; connections need the rest.
            configuration.cacheMaxOpenFiles = Int(clamping: max(64, min(descriptors / 4, 16_384)))
        }
        let engine = try await TunerEngine(configuration: configuration, logger: Logger(label: "tuner"))
        let server = TunerServer(engine: engine)
        let addressFile = engine.dataFolder.serverAddressPath
        defer { try? FileManager.default.removeItem(atPath: addressFile) }
        try await server.run(shutdownSignals: [.sigterm, .sigint]) { _ in
            let url = server.baseURL
            try? (url + "\n").write(toFile: addressFile, atomically: true, encoding: .utf8)
            print("Tuner listening on \(url)")
            print("data folder: \(engine.dataFolder.path)")
            if let descriptors, descriptors < 4096 {
                print(
                    "warning: only \(descriptors) open files allowed (ulimit -n); raise the hard limit for many viewers"
                )
            }
            fflush(nil)
        }
    }
}

/// Raises the soft limit on open files to the hard limit: every client connection, origin
/// connection and cache data file is a descriptor, and the usual soft limit of 1024 runs out
/// long before memory or bandwidth does. Returns the limit now in force (nil when unknown).
private func raiseDescriptorLimit() -> UInt64? {
    var limit = rlimit()
    #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return nil }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(resource, &raised) == 0 { return UInt64(raised.rlim_cur) }
    }
    return UInt64(limit.rlim_cur)
}

/// Keeps glibc from returning freed memory to the kernel after every response: a server that
/// streams 64 KiB buffers otherwise spends a quarter of its time on page faults and zeroing fresh
/// pages (measured by scripts/bench-proxy).
private func tuneMemoryAllocator() {
    _ = tuner_tune_allocator()
}
