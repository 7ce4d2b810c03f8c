import GRDB

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// A prepared statement of a bulk import, bound and stepped with SQLite's C API.
///
/// GRDB's `StatementArguments` boxes every value in an existential and converts it again to
/// bind it: for a 200,000-entry playlist that cost more than SQLite's own work. Texts are bound
/// in place from an ``ImportBatch``. The statement is still prepared (and owned) by GRDB, and
/// only used inside the import's write transaction.
struct SQLiteBulkStatement {
    let statement: Statement
    private var handle: SQLiteStatement { statement.sqliteStatement }
    private var index: Int32 = 0
    /// The first bind that failed since ``reset()`` (a text over SQLite's limit): ``step(_:)`` throws it.
    private var bindFailure: Int32?

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// Starts a new row of arguments.
    mutating func reset() {
        sqlite3_reset(handle)
        index = 0
        bindFailure = nil
    }

    private mutating func check(_ code: Int32) {
        if code != SQLITE_OK, bindFailure == nil { bindFailure = code }
    }

    /// Binds a text of an ``ImportBatch`` in place (`SQLITE_STATIC`): `text` must stay alive and
    /// unchanged until the statement has run, and ``clearBindings()`` must come before it goes.
    mutating func bind(_ value: ImportText, in text: UnsafeBufferPointer<UInt8>) {
        index += 1
        guard value.count >= 0 else {
            sqlite3_bind_null(handle, index)
            return
        }
        guard let base = text.baseAddress else {
            // Only a batch of empty texts has no bytes at all.
            _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
            return
        }
        // A nil destructor is SQLITE_STATIC: SQLite reads the bytes where they are.
        let bytes = UnsafeRawPointer(base + value.start).assumingMemoryBound(to: CChar.self)
        check(sqlite3_bind_text64(handle, index, bytes, sqlite3_uint64(value.count), nil, UInt8(SQLITE_UTF8)))
    }

    /// Binds the scan that ``ImportBatchTable`` reads (`WHERE batch = ?`); it must stay valid
    /// until the statement has run, and ``clearBindings()`` must come before it goes.
    mutating func bind(_ scan: UnsafePointer<ImportBatchScan>) {
        index += 1
        let type = UnsafeRawPointer(ImportBatchTable.pointerType.utf8Start).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_pointer(handle, index, UnsafeMutableRawPointer(mutating: scan), type, nil)
    }

    /// Forgets every bound value, so that no pointer into a batch that is gone stays bound.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    mutating func bind(_ value: Int64?) {
        index += 1
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: Int?) {
        bind(value.map(Int64.init))
    }

    mutating func bind(_ value: Double?) {
        index += 1
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: Bool) {
        bind(Int64(value ? 1 : 0))
    }

    /// Runs the statement; returns the first column of its first row, if it returns rows
    /// (`RETURNING id`).
    @discardableResult
    func step(_ db: Database) throws -> Int64? {
        if let bindFailure {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: bindFailure), message: "cannot bind an argument", sql: statement.sql)
        }
        var first: Int64?
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_DONE:
                return first
            case SQLITE_ROW:
                if first == nil { first = sqlite3_column_int64(handle, 0) }
            case let code:
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }

    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
