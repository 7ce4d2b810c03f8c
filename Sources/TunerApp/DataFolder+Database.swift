import Catalog
import Outputs
import Transfers
import TunerStorage

extension DataFolder {
    /// Opens the folder's database with every schema Tuner keeps in it. One per process: the
    /// server's engine and the CLI's offline commands each open it once and share it.
    public func openDatabase() throws -> TunerDatabase {
        try TunerDatabase(
            path: databasePath,
            schemas: [
                CatalogSchema.self, TransferSchema.self, OutputSchema.self, CommandSchema.self, AccessSchema.self,
            ])
    }
}
