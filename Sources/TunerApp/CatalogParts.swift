import AsyncHTTPClient
import Catalog
import Transfers
import TunerStorage

/// The catalog's parts without the rest of the engine (``TunerEngine/openCatalog(configuration:logger:)``).
public struct CatalogParts: Sendable {
    public let catalog: any CatalogStore
    public let importer: CatalogImporter
    /// Sources as the API handles them.
    public let library: Library
    /// Output profiles over the same catalog.
    public let outputs: OutputCenter
    /// Probes channels' streams (the library's channel checks).
    public let checker: StreamChecker
    let httpClient: HTTPClient
    /// The state database the parts were made on (closed by ``shutdown()``).
    let database: StateDatabase

    /// Closes the importer's connections and a PostgreSQL pool.
    public func shutdown() async throws {
        do {
            try await httpClient.shutdown()
        } catch {
            await TunerEngine.close(database)
            throw error
        }
        await TunerEngine.close(database)
    }
}

/// A transfer manager without the rest of the engine
/// (``TunerEngine/openTransfers(configuration:managerConfiguration:logger:)``).
public struct TransferParts: Sendable {
    public let manager: TransferManager
    let httpClient: HTTPClient
    /// The state database the queue is in (closed by ``shutdown()``).
    let database: StateDatabase

    /// Commits the running transfers' synced bytes and closes their connections.
    public func shutdown() async {
        await manager.shutdown()
        try? await httpClient.shutdown()
        await TunerEngine.close(database)
    }
}
