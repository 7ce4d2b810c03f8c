import Logging
import TunerStorage

extension StateDatabase {
    /// The catalog store of this state database: ``SQLiteCatalogStore`` or ``PostgresCatalogStore``.
    public func catalogStore(logger: Logger) -> any CatalogStore {
        switch self {
        case .sqlite(let database): SQLiteCatalogStore(database: database, logger: logger)
        case .postgres(let database): PostgresCatalogStore(database: database, logger: logger)
        }
    }
}
