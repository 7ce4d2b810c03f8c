import Foundation
import MediaFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TransferManager {
    /// Limits and timings.
    public struct Configuration: Sendable {
        /// Tasks running at once.
        public var maximumActive: Int
        /// Tasks running at once against one host.
        public var maximumActivePerHost: Int
        /// A run that moves no bytes for this long is cancelled and retried.
        public var stallTimeout: TimeInterval
        public var retryPolicy: RetryPolicy
        /// How often progress events are emitted and stalls checked.
        public var progressInterval: TimeInterval
        public var tuning: TransferTuning
        /// False: tasks already in the store are kept but not run; only tasks added through this
        /// manager are (the CLI's in-process `--wait` uses it so it does not start the server's queue).
        public var runsStoredTasks: Bool
        /// Where downloads and uploads may connect: every hop, redirects included, is checked on
        /// its resolved addresses (`--allow-fetch`).
        public var fetchPolicy: FetchPolicy
        /// How long a claim on a running task lasts (see ``TransferStore``); the manager renews
        /// its claims every third of it, so another worker takes a task over this long after
        /// the worker running it died.
        public var claimLifetime: TimeInterval
        /// The name under which the manager claims tasks; nil: this host and the data folder
        /// (``TransferManager/defaultWorkerID(dataDirectory:)``), so a node restarted after a
        /// crash takes its own tasks back at once while other nodes wait for them to expire.
        public var workerID: String?
        /// Where downloads go; nil: `<data folder>/downloads`. The nodes of a cluster share one
        /// (a network folder), so a node resumes a dead one's download from its committed offset.
        public var downloadsDirectory: String?
        /// Whether the manager reads the queue every third of a claim's lifetime for tasks other
        /// workers added (a cluster's nodes); off, it knows what it loaded and added.
        public var discoversTasks = false

        public init(
            maximumActive: Int = 3, maximumActivePerHost: Int = 2, stallTimeout: TimeInterval = 30,
            retryPolicy: RetryPolicy = .standard, progressInterval: TimeInterval = 0.5,
            tuning: TransferTuning = TransferTuning(),
            runsStoredTasks: Bool = true, fetchPolicy: FetchPolicy = .any, claimLifetime: TimeInterval = 60,
            workerID: String? = nil, downloadsDirectory: String? = nil
        ) {
            self.downloadsDirectory = downloadsDirectory
            self.maximumActive = max(1, maximumActive)
            self.maximumActivePerHost = max(1, maximumActivePerHost)
            self.stallTimeout = stallTimeout
            self.retryPolicy = retryPolicy
            self.progressInterval = progressInterval
            self.tuning = tuning
            self.runsStoredTasks = runsStoredTasks
            self.fetchPolicy = fetchPolicy
            // A claim renewed every third of its lifetime must outlast a tick or two.
            self.claimLifetime = claimLifetime.isFinite ? max(1, claimLifetime) : 60
            self.workerID = workerID
        }

        /// The pure decisions these settings make.
        public var scheduler: TransferScheduler {
            TransferScheduler(
                maximumActive: maximumActive, maximumActivePerHost: maximumActivePerHost, stallTimeout: stallTimeout,
                retryPolicy: retryPolicy)
        }
    }
}

extension TransferManager {
    /// This host's name and the data folder's absolute path: one worker per node, the same
    /// across the node's restarts.
    public static func defaultWorkerID(dataDirectory: String) -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        return host + ":" + URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
    }
}
