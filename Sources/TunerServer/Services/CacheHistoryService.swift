import Foundation
import ServiceLifecycle
import TunerApp

/// Records what the cache served every minute while the server runs (the web app's hit-ratio
/// chart, `GET /api/v1/cache/history`). The first sample only sets the starting totals.
struct CacheHistoryService: Service {
    let admin: CacheAdmin

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                admin.recordHistory()
                try? await Task.sleep(for: .seconds(CacheHistory.interval))
            }
        }
    }
}
