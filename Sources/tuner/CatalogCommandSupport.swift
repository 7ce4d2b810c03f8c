import AsyncHTTPClient
import Catalog
import Foundation
import Logging
import TunerApp

/// The catalog of a data folder for the `sources`, `channels`, `guide` and `open` commands, opened
/// by the engine's own factory. SQLite in WAL mode lets these run beside a server that has the same
/// file open.
struct LocalCatalog {
    let parts: CatalogParts
    let logger: Logger

    var store: any CatalogStore { parts.catalog }
    var importer: CatalogImporter { parts.importer }
    /// Sources as the API handles them, but trusting local paths: the user at the keyboard owns them.
    var library: Library { parts.library }

    /// Runs `body` and shuts the HTTP client down whatever happens.
    static func with<T>(_ dataOptions: DataOptions, _ body: (LocalCatalog) async throws -> T) async throws -> T {
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        let parts = try await TunerEngine.openCatalog(
            configuration: try await dataOptions.configuration(), logger: logger)
        do {
            let result = try await body(LocalCatalog(parts: parts, logger: logger))
            try await parts.shutdown()
            return result
        } catch {
            try? await parts.shutdown()
            throw error
        }
    }
}
