import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite
#elseif canImport(SQLite3)
import SQLite3
#endif

/// A prepared statement of a bulk import, bound and stepped with SQLite's C API.
///
/// GRDB's `StatementArguments` boxes every value in an existential and converts it again to
/// bind it: for a 200,000-entry playlist that cost more than SQLite's own work. The statement is
/// still prepared (and owned) by GRDB, and only used inside the import's write transaction.
struct SQLiteBulkStatement {
    let statement: Statement
    private var handle: SQLiteStatement { statement.sqliteStatement }
    private var index: Int32 = 0

    init(_ statement: Statement) {
        self.statement = statement
    }

    /// Starts a new row of arguments.
    mutating func reset() {
        sqlite3_reset(handle)
        index = 0
    }

    mutating func bind(_ value: String?) {
        index += 1
        guard var text = value else {
            sqlite3_bind_null(handle, index)
            return
        }
        let handle = handle, index = index
        text.withUTF8 { bytes in
            // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
            if let base = bytes.baseAddress {
                _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
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
