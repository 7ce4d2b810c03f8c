import GRDB
import Logging
import PostgresNIO
import Testing
import TunerApp
import TunerStorage
import TunerTesting

/// The two engines are versioned together: each module's PostgreSQL migrations carry its GRDB
/// identifiers in the same order, and after all of them both engines hold the same tables with the
/// same columns (PostgreSQL folds the names to lower case; derived search structures aside), so
/// `tuner database migrate` can copy any table by name and a version names one shape everywhere.
@Suite struct MigrationParityTests {
    /// Columns only PostgreSQL has, each derived by its engine from the others (`tsvector` columns
    /// are left out by type): the copy leaves them behind and the target derives its own.
    static let postgresDerived: [String: Set<String>] = [
        // The number of words the search trigger found, for FTS5's bm25 length normalisation.
        "catalogitem": ["searchlength"]
    ]

    @Test("Every module's PostgreSQL migrations are its GRDB migrations, by identifier and order")
    func identifiersMatch() throws {
        for schema in DataFolder.databaseSchemas {
            var migrator = DatabaseMigrator()
            schema.registerMigrations(in: &migrator)
            #expect(schema.postgresMigrations.map(\.identifier) == migrator.migrations, "\(schema)")
        }
    }

    @Test("After every migration both engines hold the same tables and columns", .enabled(if: TestPostgres.isAvailable))
    func shapesMatch() async throws {
        let sqlite = try DataFolder.inMemoryDatabase()
        let sqliteShape = try await sqlite.writer.read { db in
            var shape: [String: Set<String>] = [:]
            let tables = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT LIKE 'grdb_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
                    """)
            // FTS5 keeps its rows in shadow tables named after the virtual table.
            let virtual = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
            for table in tables where !virtual.contains(where: { table.hasPrefix($0 + "_") }) {
                shape[table.lowercased()] = Set(try db.columns(in: table).map { $0.name.lowercased() })
            }
            return shape
        }
        let schemas: [any PostgresSchema.Type] = DataFolder.databaseSchemas.map { $0 }
        try await TestPostgres.withDatabase(schemas: schemas) { database in
            let logger = Logger(label: "test")
            let postgresShape = try await database.read { connection in
                var shape: [String: Set<String>] = [:]
                let rows = try await connection.query(
                    """
                    SELECT c.table_name, c.column_name FROM information_schema.columns c
                    JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
                    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.is_generated = 'NEVER'
                    AND c.table_name <> 'tuner_migrations' AND c.data_type <> 'tsvector'
                    """, logger: logger)
                for try await (table, column) in rows.decode((String, String).self)
                where Self.postgresDerived[table]?.contains(column) != true {
                    shape[table, default: []].insert(column)
                }
                return shape
            }
            #expect(Set(postgresShape.keys) == Set(sqliteShape.keys))
            for (table, columns) in sqliteShape {
                #expect(postgresShape[table] == columns, "table \(table)")
            }
        }
    }
}
