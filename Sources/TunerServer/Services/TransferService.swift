import ServiceLifecycle
import TunerApp

/// Runs the transfer manager for the life of the server; on graceful shutdown active transfers
/// commit their synced offsets and stay active in the store, so the next start resumes them.
struct TransferService: Service {
    let engine: TunerEngine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await engine.runTransfers()
        }
    }
}
