import Catalog
import Outputs
import Transfers
import TunerStorage

extension DataFolder {
    /// Every schema Tuner keeps in a data folder's database, in migration order.
    public static let databaseSchemas: [any DatabaseSchema.Type] = [
        CatalogSchema.self, TransferSchema.self, OutputSchema.self, CommandSchema.self, AccessSchema.self,
    ]

    /// Opens the folder's database with every schema Tuner keeps in it. One per process: the
    /// server's engine and the CLI's offline commands each open it once and share it.
    public func openDatabase() throws -> TunerDatabase {
        try TunerDatabase(path: databasePath, schemas: Self.databaseSchemas)
    }

    /// The same database in memory, gone with the object: for tests of stores and features.
    public static func inMemoryDatabase() throws -> TunerDatabase {
        try TunerDatabase.inMemory(schemas: databaseSchemas)
    }
}
