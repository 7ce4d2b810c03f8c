import Logging
import ServiceLifecycle

/// A service the server can run without: when it fails (a port it cannot bind, say port 80
/// without the right), the failure is logged and the rest of the server keeps running.
struct OptionalService: Service {
    let name: String
    let logger: Logger
    let service: any Service

    func run() async throws {
        do {
            try await service.run()
        } catch {
            logger.warning("\(name) is off: \(error)")
            // Stay until the server stops: a service that returns early would stop the group.
            try? await gracefulShutdown()
        }
    }
}
