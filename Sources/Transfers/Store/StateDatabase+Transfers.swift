import Logging
import TunerStorage

extension StateDatabase {
    /// The transfer queue in this database: ``SQLiteTransferStore`` or ``PostgresTransferStore``.
    /// The database must have been opened with ``TransferSchema``.
    public func transferStore(logger: Logger) -> any TransferStore {
        switch self {
        case .sqlite(let database): SQLiteTransferStore(database: database)
        case .postgres(let database): PostgresTransferStore(database: database, logger: logger)
        }
    }
}
