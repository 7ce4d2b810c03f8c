import Catalog
import Foundation
import GRDB
import Logging
import Testing
import Transfers
import TunerApp
import TunerStorage

/// The catalog and the transfers live in one database, opened once per process.
@Suite struct SharedDatabaseTests {
    func temporaryFolder() throws -> DataFolder {
        try DataFolder(path: NSTemporaryDirectory() + "tuner-db-\(UUID().uuidString)")
    }

    @Test func oneDatabaseHoldsBothSchemasAndTakesConcurrentWritesOfBoth() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let database = try folder.openDatabase()
        let catalog = SQLiteCatalogStore(database: database, logger: Logger(label: "test"))
        let transfers = SQLiteTransferStore(database: database)
        // Interleaved writers of both stores on one pool: every write lands, none fails busy.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    _ = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/\(index).m3u"))
                }
                group.addTask {
                    _ = try await transfers.insert([
                        TransferTask(kind: .downloadFile, sourceURL: "http://h/\(index)", destinationName: "f\(index)")
                    ])
                }
            }
            try await group.waitForAll()
        }
        #expect(try await catalog.sources().count == 40)
        #expect(try await transfers.loadAll().count == 40)
        let applied = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(applied.contains("catalog-v1") && applied.contains("transfers-v1"), "\(applied)")
    }

    /// Before one database, each store opened the file with its own pool and migrator; such a
    /// file opens with both schemas and keeps its rows.
    @Test func aFileWrittenByTheSeparateStoresOpensWithItsRows() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        do {
            let catalog = try SQLiteCatalogStore(path: folder.databasePath, logger: Logger(label: "test"))
            _ = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/a.m3u"))
            let transfers = try SQLiteTransferStore(path: folder.databasePath)
            _ = try await transfers.insert([
                TransferTask(kind: .downloadFile, sourceURL: "http://h/x", destinationName: "x")
            ])
        }
        let database = try folder.openDatabase()
        #expect(
            try await SQLiteCatalogStore(database: database, logger: Logger(label: "test")).sources().map(\.location)
                == ["http://h/a.m3u"])
        #expect(try await SQLiteTransferStore(database: database).loadAll().map(\.destinationName) == ["x"])
    }
}
