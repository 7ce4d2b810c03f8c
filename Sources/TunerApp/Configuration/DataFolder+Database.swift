import Catalog
import Logging
import Outputs
import Transfers
import TunerStorage

extension DataFolder {
    /// Every schema Tuner keeps in its state database, in migration order: each has its tables in
    /// both engines, with the same migration identifiers.
    public static let databaseSchemas: [any StateSchema.Type] = [
        CatalogSchema.self, TransferSchema.self, OutputSchema.self, CommandSchema.self, AccessSchema.self,
        ClusterSchema.self, RecordingSchema.self,
    ]

    /// Opens the folder's database with every schema Tuner keeps in it. One per process: the
    /// server's engine and the CLI's offline commands each open it once and share it.
    public func openDatabase() throws -> TunerDatabase {
        try TunerDatabase(path: databasePath, schemas: Self.databaseSchemas)
    }

    /// Opens the state database `location` names, with every schema's migrations applied: nil is
    /// this folder's SQLite file (``openDatabase()``). A PostgreSQL server that cannot be reached
    /// throws ``StorageUnavailableError`` naming its address (never its password).
    public func openStateDatabase(_ location: DatabaseLocation?, logger: Logger) async throws -> StateDatabase {
        switch location {
        case nil:
            return .sqlite(try openDatabase())
        case .sqlite(let path):
            return .sqlite(try TunerDatabase(path: path, schemas: Self.databaseSchemas))
        case .postgres(let address):
            // The pool's own notes (each failed connection attempt, at info) would bury the one line
            // that says what failed; debug and trace keep them.
            var poolLogger = logger
            if poolLogger.logLevel > .debug { poolLogger.logLevel = max(poolLogger.logLevel, .warning) }
            return .postgres(
                try await TunerPostgres.open(address: address, schemas: Self.databaseSchemas, logger: poolLogger))
        }
    }

    /// The same database in memory, gone with the object: for tests of stores and features.
    public static func inMemoryDatabase() throws -> TunerDatabase {
        try TunerDatabase.inMemory(schemas: databaseSchemas)
    }
}
