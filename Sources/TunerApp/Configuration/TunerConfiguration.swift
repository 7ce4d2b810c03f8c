import Foundation
import LiveTV
import Logging
import MediaFormats
import Transfers
import TunerStorage

/// Everything `tuner serve` and embedders can set. ``load(flags:environment:)`` reads it once:
/// flags override environment variables, which override the configuration file, which overrides
/// the defaults here.
public struct TunerConfiguration: Sendable {
    /// Address to listen on. Anything but loopback requires the access token for API requests.
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// The data folder (database, secret, cache, downloads).
    public var dataDirectory: String
    /// Where the state lives (`--database`, `TUNER_DATABASE`, `database` in the file): nil for the
    /// data folder's SQLite file (``DataFolder/databasePath``), else a SQLite file elsewhere or a
    /// PostgreSQL database. Its password (URL, `--database-password-file`, `PGPASSWORD`) is inside
    /// the address, which never prints it. The media cache index stays in the data folder either way.
    public var database: DatabaseLocation?
    /// This node's part in a cluster on one PostgreSQL database (`--node-id`, `--advertise`); nil
    /// for a Tuner on its own.
    public var cluster: ClusterSettings?
    /// Byte budget of the media cache.
    public var cacheSize: Int64
    /// Free disk space the cache leaves alone.
    public var cacheMinimumFreeDisk: Int64
    /// Cache data files kept open at most (idle ones beyond it are closed and reopened on demand).
    /// `tuner serve` sets a quarter of the process's open-file limit.
    public var cacheMaxOpenFiles = 1024
    /// Query parameters ignored when mapping URLs to cache entries (tokens, expiry stamps).
    public var cacheIgnoredQueryParameters: [String]
    /// Seconds to wait for an origin's response head (then 504).
    public var upstreamTimeoutSeconds: Int64
    /// Seconds an origin body may stall before the fetch is failed.
    public var upstreamReadTimeoutSeconds: Int64
    /// How much the server logs (env TUNER_LOG_LEVEL or LOG_LEVEL, default info).
    public var logLevel: Logger.Level = .info
    /// Overrides the access token stored in the data folder.
    public var accessToken: String?
    /// HLS segments fetched ahead of the player; 0 turns pre-fetching off.
    public var prefetchSegments: Int = 3
    /// The UDP port that answers HDHomeRun discovery (SiliconDust's clients ask on 65001); 0
    /// turns the responder off. Off for apps that embed Tuner; `tuner serve` turns it on
    /// (``defaultHDHomeRunDiscoveryPort``) unless told otherwise.
    public var hdhomerunDiscoveryPort: Int = 0
    /// The port `tuner serve` answers discovery on by default: the one SiliconDust's clients ask.
    public static let defaultHDHomeRunDiscoveryPort = 65001
    /// One-hour programmes named after the channel, in the XMLTV outputs, for channels without a
    /// guide (Plex hides channels that have none).
    public var guidePlaceholders = true
    /// Live sessions: ring size, linger, stall detection, preemption, the transcode arguments.
    public var live = LiveSettings()
    /// The UDP port answering UPnP searches (SSDP) with each profile's `device.xml`; 0 turns it
    /// off. Off for embedders; `tuner serve` uses 1900 unless told otherwise.
    public var ssdpPort: Int = 0
    /// A second HTTP port serving only the default profile's HDHomeRun files (Jellyfin and Plex
    /// read `http://<address>/discover.json` on port 80 after discovery); 0 for none.
    public var hdhomerunHTTPPort: Int = 0
    /// Whether the main port's root HDHomeRun files (`/discover.json`, the lineups, `/auto/v…`)
    /// answer without the profile's key beyond loopback, as on ``hdhomerunHTTPPort``. Anyone on
    /// the LAN then gets the lineup and, through its keyed URLs, the streams: what discovery
    /// already announces to it.
    public var hdhomerunOpen = false
    /// How players reach Tuner when that is not how requests arrive (behind a reverse proxy):
    /// `scheme://host[:port][/path]`, used for every URL in an output. Nil: the request's Host.
    public var baseURL: String?
    /// The largest tus upload `/api/v1/uploads` accepts.
    public var uploadMaxSize: Int64 = 64 << 30
    /// Seconds an unfinished tus upload is kept after its creation or its last received bytes,
    /// then removed (env TUNER_UPLOAD_EXPIRY, default 24 h); 0 keeps them forever.
    public var uploadExpirySeconds: Double = 86400
    /// Origins whose web pages may use `/api/v1/uploads` (CORS), like `https://app.example`;
    /// `*` allows any (env TUNER_UPLOAD_ORIGINS=a,b; default none: only Tuner's own pages).
    public var uploadAllowedOrigins: [String] = []
    /// Host names the server answers to besides IP literals and `localhost`, like
    /// `tuner.home.arpa` (env TUNER_PUBLIC_HOSTS=a,b). Any other name in `Host` gets 421, which
    /// stops DNS rebinding.
    public var publicHosts: [String] = []
    /// Load balancers whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    public var trustedProxies = TrustedProxies.none
    /// Where the server may connect (`--allow-fetch`): every outgoing connection, every hop. Nil
    /// means the default, ``fetchPolicy``.
    public var allowFetch: FetchPolicy?
    /// Origins (`scheme://host[:port]`) whose web pages may change state through the API besides
    /// Tuner's own (env TUNER_ALLOWED_ORIGINS=a,b; default none).
    public var allowedOrigins: [String] = []
    /// Folders whose files API requests may upload or export into (env TUNER_FILES_ROOTS=a,b);
    /// nil means the data folder's `files/`.
    public var filesRoots: [String]?
    /// Seconds a connection may stay idle, or take to send a request's head, before it is closed
    /// (env TUNER_IDLE_TIMEOUT, default 60): slow-header (slowloris) connections do not pile up.
    public var idleTimeoutSeconds: Double = 60
    /// How often the server looks for catalog sources due for their scheduled refresh; 0 turns
    /// scheduled refreshes off (env TUNER_CATALOG_CHECK_INTERVAL, default 60).
    public var catalogRefreshCheckSeconds: Int64 = 60
    /// The refresh interval a catalog source gets when it is added without one of its own
    /// (env TUNER_CATALOG_REFRESH_INTERVAL, default a day).
    public var catalogDefaultRefreshSeconds: Double = 86_400
    /// The largest playlist or guide an import reads, downloaded or local (env
    /// TUNER_IMPORT_MAX_SIZE, default 2 GiB); beyond it the import fails and the catalog is kept.
    public var importMaxSize: Int64 = 2 << 30
    /// How long one playlist or guide download, or the parsing of a local one, may take (env
    /// TUNER_IMPORT_TIMEOUT, default 10 minutes).
    public var importTimeoutSeconds: Double = 600
    /// The largest answer of a provider's API (an Xtream panel's lists) Tuner holds in memory
    /// (env TUNER_PROVIDER_ANSWER_MAX_SIZE, default 256 MiB).
    public var providerAnswerMaxSize: Int64 = 256 << 20
    /// Downloads and uploads running at once (env TUNER_TRANSFERS_MAX_ACTIVE, default 3).
    public var transfersMaximumActive: Int = 3
    /// Of those, at once against one host (env TUNER_TRANSFERS_PER_HOST, default 2).
    public var transfersMaximumPerHost: Int = 2
    /// Seconds without bytes before a transfer is retried (env TUNER_TRANSFERS_STALL_TIMEOUT, default 30).
    public var transfersStallTimeoutSeconds: Double = 30
    /// How long a node's claim on a running transfer lasts unrenewed (`--transfers-claim-lifetime`):
    /// another node takes a dead one's transfers over this long after it died.
    public var transfersClaimLifetimeSeconds: Double = 60
    /// Where downloads go (`--downloads-dir`); nil: `<data folder>/downloads`. A cluster's nodes
    /// share one, so one resumes another's download where it stopped.
    public var downloadsDirectory: String?
    /// Where recordings go (`--recordings-dir`); nil: `<data folder>/recordings`.
    public var recordingsDirectory: String?
    /// Where backups go (`--backup-dir`; nil: `<data>/backups`).
    public var backupDirectory: String?
    /// How often the server writes a backup on its own (`--backup-every`; nil: never).
    public var backupEverySeconds: Double?
    /// How many backups in the backup folder are kept (`--backup-keep`): the oldest go first.
    public var backupKeep = 7
    /// The settings file read (`--config`, or `<data>/tuner.json`), when there is one: backups
    /// keep it.
    public var settingsFile: String?
    /// Milliseconds between a download's syncs of its partial file (env TUNER_TRANSFERS_SYNC_MS, default 2000).
    public var transfersSyncIntervalMilliseconds: Int = 2000

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = ".tuner", cacheSize: Int64 = 1 << 30,
        cacheMinimumFreeDisk: Int64 = 256 << 20, cacheIgnoredQueryParameters: [String] = [],
        upstreamTimeoutSeconds: Int64 = 20, upstreamReadTimeoutSeconds: Int64 = 30, accessToken: String? = nil
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.cacheSize = cacheSize
        self.cacheMinimumFreeDisk = cacheMinimumFreeDisk
        self.cacheIgnoredQueryParameters = cacheIgnoredQueryParameters
        self.upstreamTimeoutSeconds = upstreamTimeoutSeconds
        self.upstreamReadTimeoutSeconds = upstreamReadTimeoutSeconds
        self.accessToken = accessToken
    }

    /// A comma-separated list, trimmed, without empty items.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The transfer manager's settings from this configuration.
    public var transferManagerConfiguration: TransferManager.Configuration {
        var configuration = TransferManager.Configuration(
            maximumActive: transfersMaximumActive, maximumActivePerHost: transfersMaximumPerHost,
            stallTimeout: transfersStallTimeoutSeconds,
            tuning: TransferTuning(syncInterval: Double(transfersSyncIntervalMilliseconds) / 1000),
            fetchPolicy: fetchPolicy, claimLifetime: transfersClaimLifetimeSeconds,
            workerID: cluster.map { "node:" + $0.nodeID }, downloadsDirectory: downloadsDirectory)
        // A cluster's nodes add tasks to one queue: each reads it for the others'.
        configuration.discoversTasks = cluster != nil
        return configuration
    }

    /// The fetch policy in force: `--allow-fetch`, else `any` on loopback only and `remote` (no
    /// connection to this machine) when listening beyond it.
    public var fetchPolicy: FetchPolicy {
        allowFetch ?? (isLoopbackOnly ? .any : .remote)
    }

    /// True when the server listens only on the loopback interface.
    public var isLoopbackOnly: Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }
}
