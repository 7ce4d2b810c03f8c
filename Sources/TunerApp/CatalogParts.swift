import AsyncHTTPClient
import Catalog
import Transfers

/// The catalog's parts without the rest of the engine (``TunerEngine/openCatalog(configuration:logger:)``).
public struct CatalogParts: Sendable {
    public let catalog: SQLiteCatalogStore
    public let importer: CatalogImporter
    /// Sources as the API handles them.
    public let library: Library
    /// Output profiles over the same catalog.
    public let outputs: OutputCenter
    /// Probes channels' streams (the library's channel checks).
    public let checker: StreamChecker
    let httpClient: HTTPClient

    /// Closes the importer's connections.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }
}

/// A transfer manager without the rest of the engine
/// (``TunerEngine/openTransfers(configuration:managerConfiguration:logger:)``).
public struct TransferParts: Sendable {
    public let manager: TransferManager
    let httpClient: HTTPClient

    /// Commits the running transfers' synced bytes and closes their connections.
    public func shutdown() async {
        await manager.shutdown()
        try? await httpClient.shutdown()
    }
}
