import GRDB

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// `tunerImportBatch`: a virtual table over a run of rows of an ``ImportBatch``, so that a batch
/// goes into `catalogItem` or `catalogEpisode` with one `INSERT … SELECT` rather than one
/// statement per row. SQLite then keeps its cursors open and appends to its B-trees instead of
/// starting a statement and descending every index from the root for each row, which takes a
/// third off the cost of writing a big playlist.
///
/// The table has no state: each statement binds a pointer to an ``ImportBatchScan`` (with
/// `sqlite3_bind_pointer`) to its hidden `batch` column, `WHERE batch = ?`. Text columns are
/// handed to SQLite in place (`SQLITE_STATIC`); the scan's memory must outlive the statement's run.
enum ImportBatchTable {
    static let name = "tunerImportBatch"

    /// The columns, in the order ``column(_:of:_:)`` serves them.
    enum Column: Int32 {
        case kind, identity, name, normalizedName, groupID, groupName, tvgID, tvgName, logo, number, url, headers,
            catchupType, catchupDays, catchupSource, tvgShift, isRadio, providerID, position,
            seriesID, season, episode, title, episodeURL, episodeHeaders, duration, episodePosition, batch
    }

    /// The type tag of the bound pointer: SQLite keeps the pointer to this string, so it must be static.
    static let pointerType: StaticString = "TunerImportBatchScan"

    /// Registers the table on a connection; once per connection, when it opens.
    static func register(_ db: Database) throws {
        let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
        module.initialize(to: makeModule())
        let code = sqlite3_create_module_v2(db.sqliteConnection, name, module, module) { module in
            // SQLite is done with the module: the connection closed.
            module?.assumingMemoryBound(to: sqlite3_module.self).deallocate()
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot register \(name)")
        }
    }

    // MARK: - The module

    /// A cursor: SQLite's part first, then where the scan is.
    private struct CursorState {
        var scan: UnsafePointer<ImportBatchScan>?
        var index = 0
    }

    private static let cursorStateOffset =
        MemoryLayout<sqlite3_vtab_cursor>.stride
        + (MemoryLayout<CursorState>.alignment - MemoryLayout<sqlite3_vtab_cursor>.stride
            % MemoryLayout<CursorState>.alignment)
        % MemoryLayout<CursorState>.alignment

    private static func state(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> UnsafeMutablePointer<CursorState>
    {
        (UnsafeMutableRawPointer(cursor!) + cursorStateOffset).assumingMemoryBound(to: CursorState.self)
    }

    private static func makeModule() -> sqlite3_module {
        var module = sqlite3_module()
        // No xCreate: eponymous only, usable as `FROM tunerImportBatch` without CREATE VIRTUAL TABLE.
        module.xConnect = { db, _, _, _, table, _ in
            let columns =
                "kind, identity, name, normalizedName, groupID, groupName, tvgID, tvgName, logo, number, url, headers, "
                + "catchupType, catchupDays, catchupSource, tvgShift, isRadio, providerID, position, "
                    + """
                    seriesID, season, episode, title, episodeURL, episodeHeaders, duration, episodePosition, batch \
                    HIDDEN
                    """
            let code = sqlite3_declare_vtab(db, "CREATE TABLE x(\(columns))")
            guard code == SQLITE_OK else { return code }
            let vtab = UnsafeMutablePointer<sqlite3_vtab>.allocate(capacity: 1)
            vtab.initialize(to: sqlite3_vtab())
            table?.pointee = vtab
            return SQLITE_OK
        }
        module.xBestIndex = { _, info in
            guard let info else { return SQLITE_ERROR }
            for index in 0..<Int(info.pointee.nConstraint) {
                let constraint = info.pointee.aConstraint[index]
                if constraint.iColumn == ImportBatchTable.Column.batch.rawValue,
                    constraint.op == SQLITE_INDEX_CONSTRAINT_EQ, constraint.usable != 0
                {
                    info.pointee.aConstraintUsage[index].argvIndex = 1
                    info.pointee.aConstraintUsage[index].omit = 1
                    info.pointee.idxNum = 1
                    info.pointee.estimatedCost = 1
                    info.pointee.estimatedRows = 1024
                    return SQLITE_OK
                }
            }
            // Without a batch there is nothing to read.
            info.pointee.idxNum = 0
            info.pointee.estimatedCost = 1e12
            return SQLITE_OK
        }
        module.xDisconnect = { vtab in
            vtab?.deallocate()
            return SQLITE_OK
        }
        module.xDestroy = module.xDisconnect
        module.xOpen = { _, cursor in
            let raw = UnsafeMutableRawPointer.allocate(
                byteCount: ImportBatchTable.cursorStateOffset + MemoryLayout<CursorState>.size,
                alignment: max(MemoryLayout<sqlite3_vtab_cursor>.alignment, MemoryLayout<CursorState>.alignment))
            let base = raw.initializeMemory(as: sqlite3_vtab_cursor.self, repeating: sqlite3_vtab_cursor(), count: 1)
            (raw + ImportBatchTable.cursorStateOffset).initializeMemory(
                as: CursorState.self, repeating: CursorState(), count: 1)
            cursor?.pointee = base
            return SQLITE_OK
        }
        module.xClose = { cursor in
            UnsafeMutableRawPointer(cursor)?.deallocate()
            return SQLITE_OK
        }
        module.xFilter = { cursor, indexNumber, _, argumentCount, arguments in
            let state = ImportBatchTable.state(cursor)
            state.pointee.scan = nil
            if indexNumber == 1, argumentCount == 1, let argument = arguments?[0],
                let scan = sqlite3_value_pointer(
                    argument,
                    UnsafeRawPointer(ImportBatchTable.pointerType.utf8Start).assumingMemoryBound(to: CChar.self))
            {
                state.pointee.scan = UnsafePointer(scan.assumingMemoryBound(to: ImportBatchScan.self))
                state.pointee.index = state.pointee.scan!.pointee.range.lowerBound
            }
            return SQLITE_OK
        }
        module.xNext = { cursor in
            ImportBatchTable.state(cursor).pointee.index += 1
            return SQLITE_OK
        }
        module.xEof = { cursor in
            let state = ImportBatchTable.state(cursor)
            guard let scan = state.pointee.scan else { return 1 }
            return state.pointee.index >= scan.pointee.range.upperBound ? 1 : 0
        }
        module.xColumn = { cursor, context, column in
            let state = ImportBatchTable.state(cursor)
            guard let scan = state.pointee.scan, let column = ImportBatchTable.Column(rawValue: column) else {
                sqlite3_result_null(context)
                return SQLITE_OK
            }
            ImportBatchTable.column(column, of: scan, at: state.pointee.index, context)
            return SQLITE_OK
        }
        module.xRowid = { cursor, rowid in
            rowid?.pointee = Int64(ImportBatchTable.state(cursor).pointee.index)
            return SQLITE_OK
        }
        return module
    }

    private static func column(
        _ column: Column, of scan: UnsafePointer<ImportBatchScan>, at index: Int, _ context: OpaquePointer?
    ) {
        let row = scan.pointee.rows + index
        func text(_ value: ImportText) {
            guard value.count >= 0 else { return sqlite3_result_null(context) }
            guard let base = scan.pointee.text else { return sqlite3_result_text(context, "", 0, transient) }
            // A nil destructor is SQLITE_STATIC: SQLite copies the bytes into the record it writes.
            // Texts over SQLite's limit fail the statement (SQLITE_TOOBIG) rather than being cut.
            let bytes = UnsafeRawPointer(base + value.start).assumingMemoryBound(to: CChar.self)
            sqlite3_result_text64(context, bytes, sqlite3_uint64(value.count), nil, UInt8(SQLITE_UTF8))
        }
        func integer(_ value: Int?) {
            if let value { sqlite3_result_int64(context, Int64(value)) } else { sqlite3_result_null(context) }
        }
        func real(_ value: Double?) {
            if let value { sqlite3_result_double(context, value) } else { sqlite3_result_null(context) }
        }
        func id(_ ids: UnsafePointer<Int64>?, _ index: Int32) {
            if index >= 0, let ids {
                sqlite3_result_int64(context, ids[Int(index)])
            } else {
                sqlite3_result_null(context)
            }
        }
        switch column {
        case .kind: text(row.pointee.kind)
        case .identity: text(row.pointee.identity)
        case .name: text(row.pointee.name)
        case .normalizedName: text(row.pointee.normalizedName)
        case .groupID: id(scan.pointee.groupIDs, row.pointee.group)
        case .groupName: text(row.pointee.groupName)
        case .tvgID: text(row.pointee.tvgID)
        case .tvgName: text(row.pointee.tvgName)
        case .logo: text(row.pointee.logo)
        case .number: text(row.pointee.number)
        case .url: text(row.pointee.url)
        case .headers: text(row.pointee.headers)
        case .catchupType: text(row.pointee.catchupType)
        case .catchupDays: integer(row.pointee.catchupDays)
        case .catchupSource: text(row.pointee.catchupSource)
        case .tvgShift: real(row.pointee.tvgShift)
        case .isRadio: integer(row.pointee.isRadio ? 1 : 0)
        case .providerID: text(row.pointee.providerID)
        case .position: integer(row.pointee.position)
        case .seriesID: id(scan.pointee.seriesIDs, row.pointee.series)
        case .season: integer(row.pointee.season)
        case .episode: integer(row.pointee.episode)
        case .title: text(row.pointee.title)
        case .episodeURL: text(row.pointee.episodeURL)
        case .episodeHeaders: text(row.pointee.episodeHeaders)
        case .duration: real(row.pointee.duration)
        case .episodePosition: integer(row.pointee.episodePosition)
        case .batch: sqlite3_result_null(context)
        }
    }

    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// What one statement over ``ImportBatchTable`` reads: a range of a batch's rows, with the row ids
/// of the groups and series they name. Every pointer must stay valid while the statement runs.
struct ImportBatchScan {
    var text: UnsafePointer<UInt8>?
    var rows: UnsafePointer<ImportRow>
    var range: Range<Int>
    var groupIDs: UnsafePointer<Int64>?
    var seriesIDs: UnsafePointer<Int64>?
}
