import Catalog
import Foundation
import LiveTV
import MediaCache
import MediaFormats
import Synchronization
import Transfers
import TunerAPI

/// Feeds the events hub from the feature objects' change streams: transfers (progress at most
/// four times a second per task, state changes at once), imports, the cache, and the live
/// sessions (checked every two seconds, published when they changed). Runs until cancelled.
public struct EventSources: Sendable {
    let hub: EventHub
    let downloads: Downloads
    let cacheAdmin: CacheAdmin
    let library: Library
    let live: LiveSessions
    let dvr: DVR

    /// The shortest time between two progress events of one transfer.
    public static let progressInterval = Duration.milliseconds(250)

    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await transfers() }
            group.addTask {
                for await change in cacheAdmin.changes() {
                    hub.publish(.cache, "cache.changed", key: nil, value: CacheChange(change))
                }
            }
            group.addTask {
                for await change in library.changes() {
                    switch change {
                    case .progress(let progress):
                        hub.publish(.imports, "import.progress", key: "import:\(progress.sourceID)", value: progress)
                    case .finished(let sourceID, let counts):
                        hub.publish(
                            .imports, "import.finished", value: ImportResult(sourceID: sourceID, counts: counts))
                    case .failed(let sourceID, let reason):
                        hub.publish(.imports, "import.failed", value: ImportResult(sourceID: sourceID, error: reason))
                    case .guideUpdated(let sourceID, let counts):
                        hub.publish(
                            .guide, "guide.updated", key: "guide:\(sourceID)",
                            value: GuideUpdate(sourceID: sourceID, counts: counts))
                    case .sourceChanged(let source):
                        // Without secrets (forClients): status, last refresh, error, interval.
                        hub.publish(.imports, "source.changed", key: "source:\(source.id)", value: source)
                    }
                }
            }
            group.addTask { await streams() }
            group.addTask {
                for await change in dvr.changes() {
                    switch change {
                    case .changed(let recording):
                        hub.publish(
                            .recordings, "recording.changed", key: "recording:\(recording.id)", value: recording)
                    case .removed(let id):
                        hub.publish(
                            .recordings, "recording.removed", key: "recording:\(id)", value: RecordingRemoved(id: id))
                    case .rulesChanged:
                        hub.publish(.recordings, "rules.changed", key: "rules", value: RulesChanged())
                    }
                }
            }
            group.addTask { await cacheStatistics() }
        }
    }

    /// The cache's figures every two seconds while they change (bytes served, held, fetches): the
    /// Cache page's numbers move without asking. One key, so a slow reader gets the newest.
    private func cacheStatistics() async {
        var last: CacheStatistics?
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(2))
            let now = cacheAdmin.statistics().cache
            if now != last {
                last = now
                hub.publish(.cache, "cache.stats", key: "cache.stats", value: now)
            }
        }
    }

    private func transfers() async {
        let throttle = ProgressThrottle(hub: hub)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.progressInterval)
                    throttle.flush()
                }
            }
            for await event in downloads.changes() {
                switch event {
                case .progress(let progress):
                    throttle.offer(progress)
                case .changed(let task):
                    // A state change is never coalesced away behind progress.
                    throttle.forget(task.id)
                    hub.publish(.transfers, "transfer.changed", key: "transfer:\(task.id)", value: task)
                case .deleted(let id):
                    throttle.forget(id)
                    hub.publish(.transfers, "transfer.deleted", key: "transfer:\(id)", value: ["id": id])
                }
            }
            group.cancelAll()
        }
    }

    /// Progress of each transfer at most once per ``progressInterval``: what arrives sooner waits
    /// (only the newest) for the next flush.
    public final class ProgressThrottle: Sendable {
        let hub: EventHub
        let interval: Duration
        private let state = Mutex<(pending: [Int64: TransferProgress], sent: [Int64: ContinuousClock.Instant])>(
            ([:], [:]))

        public init(hub: EventHub, interval: Duration = EventSources.progressInterval) {
            self.hub = hub
            self.interval = interval
        }

        /// Publishes `progress` now, or keeps it (the newest only) for the next ``flush()`` when
        /// its task's last progress went out less than `interval` ago.
        public func offer(_ progress: TransferProgress) {
            let now = ContinuousClock.now
            let sendNow = state.withLock { state -> Bool in
                if let sent = state.sent[progress.id], sent.duration(to: now) < interval {
                    state.pending[progress.id] = progress
                    return false
                }
                state.sent[progress.id] = now
                return true
            }
            if sendNow { publish(progress) }
        }

        /// Publishes what waited.
        public func flush() {
            let now = ContinuousClock.now
            let due = state.withLock { state -> [TransferProgress] in
                let due = Array(state.pending.values)
                state.pending.removeAll()
                for progress in due { state.sent[progress.id] = now }
                return due
            }
            for progress in due { publish(progress) }
        }

        /// Drops what waits for task `id` (its state changed, or it is gone).
        public func forget(_ id: Int64) {
            state.withLock { state in
                state.pending[id] = nil
                state.sent[id] = nil
            }
        }

        private func publish(_ progress: TransferProgress) {
            hub.publish(.transfers, "transfer.progress", key: "progress:\(progress.id)", value: progress)
        }
    }

    private func streams() async {
        var last: [LiveStreamSummary] = []
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(2))
            let now = live.streams.map(LiveStreamSummary.init)
            if now != last {
                last = now
                hub.publish(.streams, "streams", key: "streams", value: live.streams)
            }
        }
    }

    /// What decides whether the streams list changed: who watches what, not the byte counts.
    struct LiveStreamSummary: Equatable {
        var id: String
        var viewers: [String]
        var upstreamChannelID: Int64?
        var failovers: Int

        init(_ info: LiveStreamInfo) {
            id = info.id
            viewers = info.viewers.map { $0.address + ($0.user ?? "") }
            upstreamChannelID = info.upstreamChannelID
            failovers = info.failovers.count
        }
    }

    struct RecordingRemoved: Encodable {
        var id: Int64
    }

    /// Rules changed: clients read `/api/v1/rules` again.
    struct RulesChanged: Encodable {}

    struct GuideUpdate: Encodable {
        var sourceID: Int64
        var counts: GuideImportCounts
    }

    struct ImportResult: Encodable {
        var sourceID: Int64
        var counts: CatalogImportCounts?
        var error: String?

        init(sourceID: Int64, counts: CatalogImportCounts? = nil, error: String? = nil) {
            self.sourceID = sourceID
            self.counts = counts
            self.error = error
        }
    }

    struct CacheChange: Encodable {
        var change: String
        var url: String?
        var bytes: Int64?

        init(_ change: CacheAdmin.Change) {
            switch change {
            case .cleared: self.change = "cleared"
            case .trimmed(let freed): (self.change, bytes) = ("trimmed", freed)
            // A provider's URL may carry its password: every subscriber sees these.
            case .pinned(let url, let pinned):
                (self.change, self.url) = (pinned ? "pinned" : "unpinned", SecretRedactor.redact(url))
            case .exported(let url, _): (self.change, self.url) = ("exported", SecretRedactor.redact(url))
            case .preloadStarted(let id): (self.change, self.url) = ("preloadStarted", id)
            case .preloadCancelled(let id): (self.change, self.url) = ("preloadCancelled", id)
            }
        }
    }
}
