import AsyncHTTPClient
import Catalog
import Foundation
import Logging
import TunerApp

/// Opens the catalog of a data folder for the `sources` and `channels` commands. SQLite in WAL
/// mode lets these run beside a server that has the same file open.
struct LocalCatalog {
    let store: SQLiteCatalogStore
    let httpClient: HTTPClient
    let importer: CatalogImporter
    /// Sources as the API handles them, but trusting local paths: the user at the keyboard owns them.
    let library: Library
    let logger: Logger

    init(dataDirectory: String) throws {
        let folder = try DataFolder(path: dataDirectory)
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        store = SQLiteCatalogStore(database: try folder.openDatabase(), logger: logger)
        httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
        importer = CatalogImporter(store: store, httpClient: httpClient, logger: logger)
        library = Library(
            catalog: store, importer: importer, localFiles: nil,
            defaultRefreshInterval: try TunerConfiguration.fromEnvironment().catalogDefaultRefreshSeconds)
        self.logger = logger
    }

    /// Runs `body` and shuts the HTTP client down whatever happens.
    static func with<T>(_ dataOptions: DataOptions, _ body: (LocalCatalog) async throws -> T) async throws -> T {
        let catalog = try LocalCatalog(dataDirectory: dataOptions.resolvedDataDirectory())
        do {
            let result = try await body(catalog)
            try await catalog.httpClient.shutdown()
            return result
        } catch {
            try? await catalog.httpClient.shutdown()
            throw error
        }
    }
}
