import Foundation
import MediaFormats

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

        public init(
            maximumActive: Int = 3, maximumActivePerHost: Int = 2, stallTimeout: TimeInterval = 30,
            retryPolicy: RetryPolicy = .standard, progressInterval: TimeInterval = 0.5,
            tuning: TransferTuning = TransferTuning(),
            runsStoredTasks: Bool = true, fetchPolicy: FetchPolicy = .any
        ) {
            self.maximumActive = max(1, maximumActive)
            self.maximumActivePerHost = max(1, maximumActivePerHost)
            self.stallTimeout = stallTimeout
            self.retryPolicy = retryPolicy
            self.progressInterval = progressInterval
            self.tuning = tuning
            self.runsStoredTasks = runsStoredTasks
            self.fetchPolicy = fetchPolicy
        }

        /// The pure decisions these settings make.
        public var scheduler: TransferScheduler {
            TransferScheduler(
                maximumActive: maximumActive, maximumActivePerHost: maximumActivePerHost, stallTimeout: stallTimeout,
                retryPolicy: retryPolicy)
        }
    }
}
