import ServiceLifecycle
import TunerApp

/// Keeps output profiles' channel numbers: records the numbers new channels got (after imports)
/// once a minute. Reads work the same numbers out in
/// the meantime, so no GET has to write.
struct OutputNumberingService: Service {
    let engine: TunerEngine

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
                guard !Task.isCancelled else { return }
                do {
                    try await engine.outputs.recordNumbers()
                } catch {
                    engine.logger.warning("Cannot record output channel numbers", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
