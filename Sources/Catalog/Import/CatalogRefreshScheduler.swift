import Foundation
import Logging
import Synchronization

/// Re-imports sources when their refresh interval has passed (daily by default, per source),
/// and their guides with them; old programmes are pruned after each round.
///
/// ``refreshDue(now:)`` does one round at a given time, so tests drive it without waiting;
/// ``run(checkEvery:)`` calls it periodically for the life of the server. A failed refresh keeps
/// the source's previous items (the importer's rule) and records the error on the source; it is
/// tried again after `retryAfterFailure`, not at every round.
public final class CatalogRefreshScheduler: Sendable {
    public let importer: CatalogImporter
    let retryAfterFailure: TimeInterval
    let guideRetention: Int64
    let logger: Logger
    /// When each source was last tried, in this process (failures do not move `lastRefresh`).
    private let attempts = Mutex<[Int64: Date]>([:])
    /// How a due source is refreshed, when the owner has its own way (the app's `Library`, which
    /// reports progress and results to the live events); nil: the importer directly.
    let refresher: (@Sendable (CatalogSource) async throws -> Void)?

    public init(
        importer: CatalogImporter, retryAfterFailure: TimeInterval = 3600, guideRetention: Int64 = 7 * 86_400,
        logger: Logger, refresher: (@Sendable (CatalogSource) async throws -> Void)? = nil
    ) {
        self.importer = importer
        self.retryAfterFailure = retryAfterFailure
        self.guideRetention = guideRetention
        self.logger = logger
        self.refresher = refresher
    }

    /// Whether `source` is due at `now`.
    public func isDue(_ source: CatalogSource, now: Date) -> Bool {
        guard source.status != .refreshing else { return false }
        if let attempt = attempts.withLock({ $0[source.id] }), source.status == .failed,
            now.timeIntervalSince(attempt) < min(retryAfterFailure, source.refreshInterval)
        {
            return false
        }
        guard let last = source.lastRefresh else { return true }
        return now.timeIntervalSince(last) >= source.refreshInterval
    }

    /// Refreshes every due source, one after the other, and returns their ids. Errors are
    /// recorded on the sources and logged, never thrown.
    @discardableResult
    public func refreshDue(now: Date = Date()) async -> [Int64] {
        let sources: [CatalogSource]
        do {
            sources = try await importer.store.sources()
        } catch {
            logger.warning("Cannot list catalog sources for the scheduled refresh", metadata: ["error": "\(error)"])
            return []
        }
        var refreshed: [Int64] = []
        let seconds = Int64(now.timeIntervalSince1970)
        for source in sources where isDue(source, now: now) {
            attempts.withLock { $0[source.id] = now }
            refreshed.append(source.id)
            if let refresher {
                do {
                    try await refresher(source)
                } catch {
                    logger.info("Scheduled refresh failed", metadata: ["source": "\(source.id)", "error": "\(error)"])
                }
                continue
            }
            do {
                if source.kind == .xmltv {
                    try await importer.refreshGuide(sourceID: source.id, now: seconds, retention: guideRetention)
                    continue
                }
                try await importer.refresh(sourceID: source.id)
                // The importer may have learnt guide URLs from the playlist or the panel.
                if let updated = try await importer.store.source(id: source.id), !updated.epgURLs.isEmpty {
                    do {
                        try await importer.refreshGuide(sourceID: source.id, now: seconds, retention: guideRetention)
                    } catch {
                        logger.info(
                            "Scheduled guide refresh failed; previous guide kept",
                            metadata: ["source": "\(source.id)", "error": "\(error)"])
                    }
                }
            } catch {
                // The importer recorded the failure on the source and kept its items.
                logger.info("Scheduled refresh failed", metadata: ["source": "\(source.id)", "error": "\(error)"])
            }
        }
        if !refreshed.isEmpty {
            _ = try? await importer.store.pruneGuide(endingBefore: seconds - guideRetention)
        }
        return refreshed
    }

    /// Checks for due sources every `interval` until cancelled. The first check waits one
    /// interval, so a server that just started (or a test) is not refreshing behind its back.
    public func run(checkEvery interval: Duration = .seconds(60)) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await refreshDue()
        }
    }
}
