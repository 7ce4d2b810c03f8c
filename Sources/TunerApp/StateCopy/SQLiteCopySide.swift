import Foundation
import GRDB
import TunerStorage

/// A SQLite file as either end of a copy.
///
/// It uses a connection of its own that may keep a transaction open across accesses (GRDB's
/// `allowsUnsafeTransactions`): a read sees one snapshot from the first table to the last, and
/// a fill is one transaction however many batches it takes, while each batch is a short access
/// so the async reads of the other engine run between them.
final class SQLiteCopySide: CopySide {
    /// Rows per access: large enough that a batch costs far more than its access, small enough
    /// that a batch of guide programmes stays a few megabytes.
    static let batchSize = 5_000

    let path: String
    private let queue: DatabaseQueue

    private init(path: String, queue: DatabaseQueue) {
        self.path = path
        self.queue = queue
    }

    /// An existing database, as it is (no migration: the source keeps its version).
    static func openExisting(path: String, schemas: [any DatabaseSchema.Type]) throws -> SQLiteCopySide {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FeatureError(.notFound, "there is no database at \(path); name the data folder with --data")
        }
        return try SQLiteCopySide(path: path, queue: DatabaseQueue(path: path, configuration: configuration(schemas)))
    }

    /// A database with every migration of `schemas` applied (created if missing).
    static func openMigrated(path: String, schemas: [any DatabaseSchema.Type]) throws -> SQLiteCopySide {
        // TunerDatabase migrates as `tuner serve` does; its pool closes when it goes out of scope.
        _ = try TunerDatabase(path: path, schemas: schemas)
        return try SQLiteCopySide(path: path, queue: DatabaseQueue(path: path, configuration: configuration(schemas)))
    }

    private static func configuration(_ schemas: [any DatabaseSchema.Type]) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.allowsUnsafeTransactions = true
        configuration.busyMode = .timeout(10)
        configuration.label = "tuner.copy"
        configuration.prepareDatabase { db in
            for schema in schemas { try schema.prepare(db) }
        }
        return configuration
    }

    func close() async {
        try? queue.close()
    }

    func appliedMigrations() async throws -> Set<String> {
        try await queue.read { db in
            guard try db.tableExists("grdb_migrations") else { return [] }
            return Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
    }

    func tables() async throws -> [CopyTable] {
        try await queue.read { db in
            let all = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table'")
            let virtual = all.compactMap { row -> String? in
                let sql: String = row["sql"] ?? ""
                return sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") ? row["name"] : nil
            }
            var tables: [CopyTable] = []
            for row in all {
                let name: String = row["name"]
                let sql: String = row["sql"] ?? ""
                // Bookkeeping, search indexes and their shadow tables are not state: the target
                // keeps its own migrations and rebuilds its search index from the rows.
                if name.hasPrefix("sqlite_") || name == "grdb_migrations" || virtual.contains(name)
                    || virtual.contains(where: { name.hasPrefix($0 + "_") })
                {
                    continue
                }
                tables.append(try Self.describe(db, name: name, sql: sql))
            }
            return tables
        }
    }

    private static func describe(_ db: Database, name: String, sql: String) throws -> CopyTable {
        var columns: [CopyTable.Column] = []
        var key: [(position: Int, name: String)] = []
        for info in try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\(quoted(name)))") {
            // Hidden columns (2, 3) are generated: derived, never copied.
            let hidden: Int = info["hidden"]
            guard hidden == 0 else { continue }
            let column: String = info["name"]
            columns.append(CopyTable.Column(name: column, kind: kind(declared: info["type"] ?? "")))
            let position: Int = info["pk"]
            if position > 0 { key.append((position, column.lowercased())) }
        }
        let parents = try String.fetchAll(
            db, sql: "SELECT \"table\" FROM pragma_foreign_key_list(?)", arguments: [name])
        return CopyTable(
            name: name, columns: columns, primaryKey: key.sorted { $0.position < $1.position }.map(\.name),
            parents: Set(parents.map { $0.lowercased() }), isAutoincrement: sql.uppercased().contains("AUTOINCREMENT"))
    }

    /// SQLite's affinity rules (https://sqlite.org/datatype3.html, 3.1), in their order.
    private static func kind(declared: String) -> CopyTable.Kind {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.contains("BLOB") || type.isEmpty { return .blob }
        return .real
    }

    func idFloors(_ tables: [CopyTable]) async throws -> [String: Int64] {
        try await queue.read { db in
            guard try db.tableExists("sqlite_sequence") else { return [:] }
            var floors: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence") {
                let name: String = row["name"]
                floors[name.lowercased()] = row["seq"]
            }
            return floors
        }
    }

    func nonEmpty(_ tables: [CopyTable]) async throws -> [String] {
        try await queue.read { db in
            try tables.filter { table in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(Self.quoted(table.name)))") ?? false
            }.map(\.name)
        }
    }

    func withSnapshot<Result: Sendable>(
        _ body: @escaping @Sendable (any CopyReader) async throws -> Result
    ) async throws -> Result {
        try await queue.writeWithoutTransaction { db in try db.beginTransaction(.deferred) }
        do {
            let result = try await body(Reader(queue: queue))
            try await queue.writeWithoutTransaction { db in try db.commit() }
            return result
        } catch {
            try? await queue.writeWithoutTransaction { db in try db.rollback() }
            throw error
        }
    }

    /// Reads one table in batches; a table keyed by one integer column pages by key (each batch a
    /// seek), any other by offset (only small tables have composite or text keys).
    private struct Reader: CopyReader {
        let queue: DatabaseQueue

        nonisolated(nonsending) func read(
            _ table: CopyTable, columns: [CopyTable.Column], order: [CopyTable.Column],
            _ body: ([[CopyValue]]) async throws -> Void
        ) async throws {
            let list = columns.map { SQLiteCopySide.quoted($0.name) }.joined(separator: ", ")
            let from = SQLiteCopySide.quoted(table.name)
            if order.count == 1, order[0].kind == .integer,
                let keyIndex = columns.firstIndex(where: { $0.key == order[0].key })
            {
                let key = SQLiteCopySide.quoted(order[0].name)
                let limit = "ORDER BY \(key) LIMIT \(SQLiteCopySide.batchSize)"
                // A NULL key never matches: count(_:) catches such a row rather than losing it.
                let first = "SELECT \(list) FROM \(from) WHERE \(key) >= ? \(limit)"
                let next = "SELECT \(list) FROM \(from) WHERE \(key) > ? \(limit)"
                var sql = first
                var after = Int64.min
                while true {
                    let (statement, bound) = (sql, after)
                    let batch = try await queue.writeWithoutTransaction { db in
                        try Self.rows(db, statement, arguments: [bound], width: columns.count)
                    }
                    if batch.isEmpty { return }
                    try await body(batch)
                    guard case .integer(let last) = batch[batch.count - 1][keyIndex] else { return }
                    (sql, after) = (next, last)
                    if batch.count < SQLiteCopySide.batchSize { return }
                }
            }
            // BINARY orders text by its UTF-8 bytes, as PostgreSQL's "C" collation does.
            let orderBy = order.map { SQLiteCopySide.quoted($0.name) + " COLLATE BINARY" }.joined(separator: ", ")
            let sql = "SELECT \(list) FROM \(from) ORDER BY \(orderBy) LIMIT \(SQLiteCopySide.batchSize) OFFSET ?"
            var offset = 0
            while true {
                let skip = offset
                let batch = try await queue.writeWithoutTransaction { db in
                    try Self.rows(db, sql, arguments: [skip], width: columns.count)
                }
                if batch.isEmpty { return }
                try await body(batch)
                offset += batch.count
                if batch.count < SQLiteCopySide.batchSize { return }
            }
        }

        func count(_ table: CopyTable) async throws -> Int {
            try await queue.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLiteCopySide.quoted(table.name))") ?? 0
            }
        }

        private static func rows(
            _ db: Database, _ sql: String, arguments: StatementArguments, width: Int
        ) throws -> [[CopyValue]] {
            let statement = try db.cachedStatement(sql: sql)
            var rows: [[CopyValue]] = []
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try cursor.next() {
                var values: [CopyValue] = []
                values.reserveCapacity(width)
                for index in 0..<width {
                    switch (row[index] as DatabaseValue).storage {
                    case .null: values.append(.null)
                    case .int64(let number): values.append(.integer(number))
                    case .double(let number): values.append(.real(number))
                    case .string(let text): values.append(.text(text))
                    case .blob(let data): values.append(.blob([UInt8](data)))
                    }
                }
                rows.append(values)
            }
            return rows
        }
    }

    func fill(
        _ plans: [CopyPlan], replace: Bool, floors: [String: Int64], from reader: any CopyReader
    ) async throws -> [TableDigest] {
        try await queue.writeWithoutTransaction { db in
            try db.beginTransaction(.immediate)
            // Checked at commit: rows arrive parents first anyway, but a copy never fails halfway
            // over an order the foreign keys did not foresee.
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        }
        do {
            if replace {
                try await queue.writeWithoutTransaction { db in
                    for plan in plans.reversed() { try db.execute(sql: "DELETE FROM \(Self.quoted(plan.target.name))") }
                }
            }
            var digests: [TableDigest] = []
            for plan in plans {
                let insert =
                    "INSERT INTO \(Self.quoted(plan.target.name)) ("
                    + plan.targetColumns.map { Self.quoted($0.name) }.joined(separator: ", ") + ") VALUES ("
                    + Array(repeating: "?", count: plan.targetColumns.count).joined(separator: ", ") + ")"
                var digest = RowDigest()
                try await reader.read(plan.source, columns: plan.sourceColumns, order: plan.sourceOrder) { batch in
                    digest.add(batch)
                    try await queue.writeWithoutTransaction { db in
                        let statement = try db.cachedStatement(sql: insert)
                        for row in batch {
                            statement.setUncheckedArguments(StatementArguments(row.map(Self.databaseValue)))
                            try statement.execute()
                        }
                    }
                }
                digests.append(digest.finish())
            }
            try await queue.writeWithoutTransaction { db in
                try Self.setFloors(db, plans: plans, floors: floors)
                try Self.rebuildSearch(db)
                try db.commit()
            }
            return digests
        } catch {
            try? await queue.writeWithoutTransaction { db in try db.rollback() }
            throw error
        }
    }

    /// AUTOINCREMENT tables never reuse an id the source gave once, even of a deleted row.
    private static func setFloors(_ db: Database, plans: [CopyPlan], floors: [String: Int64]) throws {
        for plan in plans where plan.target.isAutoincrement {
            guard let floor = floors[plan.key] else { continue }
            let name = plan.target.name
            try db.execute(
                sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [floor, name])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [name, floor])
            }
        }
    }

    /// FTS5 tables index other tables' rows (external content): rebuilt from them in one pass,
    /// as an import does.
    private static func rebuildSearch(_ db: Database) throws {
        let names = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table'
                AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%' AND upper(sql) LIKE '%USING FTS5%'
                """)
        for name in names {
            try db.execute(sql: "INSERT INTO \(quoted(name)) (\(quoted(name))) VALUES ('rebuild')")
        }
    }

    private static func databaseValue(_ value: CopyValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    /// A name from the database's own catalog, quoted so any spelling stays one identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
