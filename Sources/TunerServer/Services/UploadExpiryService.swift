import ServiceLifecycle
import TusServer

/// Removes unfinished tus uploads whose expiry has passed, while the server runs.
struct UploadExpiryService: Service {
    let store: TusUploadStore

    func run() async throws {
        guard store.configuration.expirySweepInterval != nil else {
            // Uploads never expire; but a service that returns early would stop the server.
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            await store.runExpirySweeps()
        }
    }
}
