import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Scheduled refresh")
struct ScheduledRefreshTests {
    @Test(
        """
        Sources are refreshed when their interval has passed; a failure keeps the items, records the error and \
        waits to retry
        """, arguments: StorageEngine.underTest)
    func refreshesDueSources(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write("#EXTM3U\n#EXTINF:-1,First\nhttp://example.com/1\n", to: "scheduled.m3u")
            let hourly = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: path, refreshInterval: 3600))
            let daily = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { importer in
                let scheduler = CatalogRefreshScheduler(importer: importer, retryAfterFailure: 600, logger: testLogger)
                // Never refreshed: both are due.
                let t0 = Date()
                #expect(await scheduler.refreshDue(now: t0) == [hourly.id, daily.id])
                let refreshed = try #require(try await catalog.store.source(id: hourly.id)?.lastRefresh)
                #expect(await scheduler.refreshDue(now: refreshed.addingTimeInterval(1800)) == [])

                try Data(
                    "#EXTM3U\n#EXTINF:-1,First\nhttp://example.com/1\n#EXTINF:-1,Second\nhttp://example.com/2\n".utf8
                )
                .write(to: URL(fileURLWithPath: path))
                // Past an hour only the hourly source is due, and it picks up the new channel.
                #expect(await scheduler.refreshDue(now: refreshed.addingTimeInterval(3601)) == [hourly.id])
                #expect(try await catalog.store.items(CatalogItemQuery(kind: .live, sourceID: hourly.id)).total == 2)
                #expect(try await catalog.store.items(CatalogItemQuery(kind: .live, sourceID: daily.id)).total == 1)

                // A broken playlist: the refresh fails, the items stay, the error is recorded.
                try Data("not a playlist at all\n".utf8).write(to: URL(fileURLWithPath: path))
                let later = refreshed.addingTimeInterval(2 * 3601)
                #expect(await scheduler.refreshDue(now: later) == [hourly.id])
                let failed = try #require(try await catalog.store.source(id: hourly.id))
                #expect(failed.status == .failed)
                #expect(failed.lastError != nil)
                #expect(try await catalog.store.items(CatalogItemQuery(kind: .live, sourceID: hourly.id)).total == 2)
                // Not retried at every round, but after the retry delay.
                #expect(await scheduler.refreshDue(now: later.addingTimeInterval(60)) == [])
                #expect(await scheduler.refreshDue(now: later.addingTimeInterval(601)) == [hourly.id])
                // A day after its own refresh, the daily source is due again.
                let dailyRefreshed = try #require(try await catalog.store.source(id: daily.id)?.lastRefresh)
                #expect(
                    await scheduler.refreshDue(now: dailyRefreshed.addingTimeInterval(86_399)).contains(daily.id)
                        == false)
                #expect(await scheduler.refreshDue(now: dailyRefreshed.addingTimeInterval(86_401)).contains(daily.id))
            }
        }
    }
}
