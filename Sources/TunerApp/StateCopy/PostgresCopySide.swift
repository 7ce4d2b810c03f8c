import Logging
import NIOCore
import PostgresNIO
import TunerStorage

/// A PostgreSQL database as either end of a copy: rows go in with `COPY … FROM STDIN` in one
/// transaction and come out of one repeatable-read snapshot, streamed.
///
/// Statements name tables and columns read from the database's own catalog, quoted; they are
/// built as text (`PostgresQuery(unsafeSQL:)`) because identifiers cannot be bound parameters.
final class PostgresCopySide: CopySide {
    /// Rows per batch handed on (and per `COPY` message): about as many as SQLite's side takes.
    static let batchSize = 5_000

    let database: TunerPostgres
    private let logger: Logger

    init(database: TunerPostgres, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    func close() async {
        await database.close()
    }

    func appliedMigrations() async throws -> Set<String> {
        let logger = logger
        return try await database.read { connection in
            var applied = Set<String>()
            // TunerPostgres.open makes the table, so it exists even in a database Tuner never used.
            let rows = try await connection.query("SELECT identifier FROM tuner_migrations", logger: logger)
            for try await identifier in rows.decode(String.self) { applied.insert(identifier) }
            return applied
        }
    }

    func tables() async throws -> [CopyTable] {
        let logger = logger
        return try await database.read { connection in
            var tables: [String: CopyTable] = [:]
            var order: [String] = []
            let columns = try await connection.query(
                """
                SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.is_generated::text,
                    c.is_identity::text
                FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
                    AND c.table_name <> 'tuner_migrations'
                ORDER BY c.table_name, c.ordinal_position
                """, logger: logger)
            for try await (table, column, type, generated, identity) in columns.decode(
                (String, String, String, String, String).self)
            {
                if tables[table] == nil {
                    tables[table] = CopyTable(name: table, columns: [], primaryKey: [], parents: [])
                    order.append(table)
                }
                // Generated columns (the search vector) are derived from the others: the target
                // computes its own.
                guard generated != "ALWAYS", type != "tsvector" else { continue }
                tables[table]?.columns.append(
                    CopyTable.Column(name: column, kind: Self.kind(type), isIdentity: identity == "YES"))
            }
            let keys = try await connection.query(
                """
                SELECT c.relname::text, a.attname::text
                FROM pg_index i
                JOIN pg_class c ON c.oid = i.indrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indisprimary AND n.nspname = current_schema()
                ORDER BY c.relname, array_position(i.indkey::int2[], a.attnum)
                """, logger: logger)
            for try await (table, column) in keys.decode((String, String).self) {
                tables[table]?.primaryKey.append(column.lowercased())
            }
            let parents = try await connection.query(
                """
                SELECT c.relname::text, p.relname::text
                FROM pg_constraint k
                JOIN pg_class c ON c.oid = k.conrelid
                JOIN pg_class p ON p.oid = k.confrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE k.contype = 'f' AND n.nspname = current_schema()
                """, logger: logger)
            for try await (table, parent) in parents.decode((String, String).self) {
                tables[table]?.parents.insert(parent.lowercased())
            }
            return order.compactMap { tables[$0] }
        }
    }

    private static func kind(_ type: String) -> CopyTable.Kind {
        switch type {
        case "bigint", "integer", "smallint", "boolean": .integer
        case "double precision", "real": .real
        case "text", "character varying", "character", "name": .text
        case "bytea": .blob
        default: .other(type)
        }
    }

    func idFloors(_ tables: [CopyTable]) async throws -> [String: Int64] {
        let logger = logger
        return try await database.read { connection in
            var floors: [String: Int64] = [:]
            for table in tables {
                for column in table.columns where column.isIdentity {
                    let rows = try await connection.query(
                        """
                        SELECT pg_sequence_last_value(
                            pg_get_serial_sequence(\(PostgresCopySide.quoted(table.name)), \(column.name))::regclass)
                        """, logger: logger)
                    for try await last in rows.decode(Int64?.self) {
                        if let last { floors[table.key] = last }
                    }
                }
            }
            return floors
        }
    }

    func nonEmpty(_ tables: [CopyTable]) async throws -> [String] {
        let logger = logger
        return try await database.read { connection in
            var found: [String] = []
            for table in tables {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(Self.quoted(table.name)))"), logger: logger
                )
                for try await holds in rows.decode(Bool.self) where holds { found.append(table.name) }
            }
            return found
        }
    }

    func withSnapshot<Result: Sendable>(
        _ body: @escaping @Sendable (any CopyReader) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        return try await database.read { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let result = try await body(Reader(connection: connection, logger: logger))
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Streams a table's rows (postgres-nio reads them as they are consumed), ordered by the key
    /// with text in byte order, as SQLite's BINARY collation orders it.
    private struct Reader: CopyReader {
        let connection: PostgresConnection
        let logger: Logger

        nonisolated(nonsending) func read(
            _ table: CopyTable, columns: [CopyTable.Column], order: [CopyTable.Column],
            _ body: ([[CopyValue]]) async throws -> Void
        ) async throws {
            let list = columns.map { PostgresCopySide.quoted($0.name) }.joined(separator: ", ")
            let orderBy = order.map { column in
                PostgresCopySide.quoted(column.name) + (column.kind == .text ? " COLLATE \"C\"" : "") + " NULLS FIRST"
            }.joined(separator: ", ")
            let sql = "SELECT \(list) FROM \(PostgresCopySide.quoted(table.name)) ORDER BY \(orderBy)"
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            var batch: [[CopyValue]] = []
            batch.reserveCapacity(PostgresCopySide.batchSize)
            for try await row in rows {
                var values: [CopyValue] = []
                values.reserveCapacity(columns.count)
                for cell in row { values.append(try PostgresCopySide.value(cell, table: table.name)) }
                batch.append(values)
                if batch.count == PostgresCopySide.batchSize {
                    try await body(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try await body(batch) }
        }

        func count(_ table: CopyTable) async throws -> Int {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(PostgresCopySide.quoted(table.name))"), logger: logger)
            var count = 0
            for try await value in rows.decode(Int64.self) { count = Int(value) }
            return count
        }
    }

    /// A cell as a ``CopyValue``; a type outside Tuner's five is an error naming the column.
    static func value(_ cell: PostgresCell, table: String) throws -> CopyValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return .integer(try cell.decode(Int64.self))
        case .bool:
            return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .float4, .float8:
            return .real(try cell.decode(Double.self))
        case .text, .varchar, .bpchar, .name:
            return .text(try cell.decode(String.self))
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(buffer.readBytes(length: buffer.readableBytes) ?? [])
        default:
            throw FeatureError(
                .failed,
                "column \(cell.columnName) of table \(table) has a type (\(cell.dataType)) that Tuner's tables "
                    + "do not use")
        }
    }

    func fill(
        _ plans: [CopyPlan], replace: Bool, floors: [String: Int64], from reader: any CopyReader
    ) async throws -> [TableDigest] {
        let logger = logger
        return try await database.write { connection in
            if replace, !plans.isEmpty {
                // TRUNCATE is transactional in PostgreSQL: the old rows come back if the copy fails.
                let names = plans.map { Self.quoted($0.target.name) }.joined(separator: ", ")
                try await connection.query(PostgresQuery(unsafeSQL: "TRUNCATE \(names)"), logger: logger)
            }
            var digests: [TableDigest] = []
            for plan in plans {
                var digest = RowDigest()
                try await connection.copy(
                    into: plan.target.name, columns: plan.targetColumns.map(\.name), logger: logger
                ) { writer in
                    try await reader.read(plan.source, columns: plan.sourceColumns, order: plan.sourceOrder) { batch in
                        digest.add(batch)
                        var rows = PostgresCopyText(capacity: 64 * 1024)
                        for row in batch {
                            for value in row {
                                switch value {
                                case .null: rows.null()
                                case .integer(let number): rows.integer(number)
                                case .real(let number): rows.real(number)
                                case .text(let text): rows.text(text)
                                case .blob(let bytes): rows.bytea(bytes)
                                }
                            }
                            rows.endRow()
                        }
                        try await writer.write(rows.buffer)
                    }
                }
                digests.append(digest.finish())
            }
            try await Self.setIdentities(connection, plans: plans, floors: floors, logger: logger)
            return digests
        }
    }

    /// Each identity sequence continues after the highest id copied (or the source's own counter,
    /// when it had given higher ids to rows since deleted), as the source would have.
    private static func setIdentities(
        _ connection: PostgresConnection, plans: [CopyPlan], floors: [String: Int64], logger: Logger
    ) async throws {
        for plan in plans {
            for column in plan.target.columns where column.isIdentity {
                let table = quoted(plan.target.name)
                var highest = floors[plan.key] ?? 0
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT max(\(quoted(column.name)))::bigint FROM \(table)"), logger: logger
                )
                for try await value in rows.decode(Int64?.self) { highest = max(highest, value ?? 0) }
                // setval(…, 1, false): the next id is 1; setval(…, n, true): the next is n + 1.
                let isCalled = highest >= 1
                let value = max(highest, 1)
                try await connection.query(
                    "SELECT setval(pg_get_serial_sequence(\(table), \(column.name)), \(value), \(isCalled))",
                    logger: logger)
            }
        }
    }

    /// A name from the database's own catalog, quoted so it stays one identifier as spelled.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
