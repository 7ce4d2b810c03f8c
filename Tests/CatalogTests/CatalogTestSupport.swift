import Foundation
import GRDB
import Logging
import PostgresNIO
import TunerStorage
import TunerTesting

@testable import Catalog

/// A catalog on one engine (SQLite in memory, or a new PostgreSQL database), with a fresh
/// temporary folder for the files a test writes, removed when the test is done.
///
/// Conformance suites run each test on every engine of `StorageEngine.underTest`:
/// `try await TemporaryCatalog.with(engine) { catalog in … }`.
final class TemporaryCatalog: Sendable {
    let directory: URL
    let engine: StorageEngine
    let database: StateDatabase
    let store: any CatalogStore

    /// A catalog in `database` (which holds ``CatalogSchema``).
    init(engine: StorageEngine, database: StateDatabase) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.engine = engine
        self.database = database
        store = database.catalogStore(logger: testLogger)
    }

    /// A SQLite catalog in memory.
    convenience init() throws {
        try self.init(engine: .sqlite, database: .sqlite(try TunerDatabase.inMemory(schemas: [CatalogSchema.self])))
    }

    /// Runs `body` with a catalog on `engine`; a PostgreSQL database is dropped afterwards.
    static func with<Result>(
        _ engine: StorageEngine, _ body: (TemporaryCatalog) async throws -> Result
    ) async throws -> Result {
        try await TestPostgres.withStateDatabase(engine, schemas: [CatalogSchema.self]) { database in
            try await body(try TemporaryCatalog(engine: engine, database: database))
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `text` to a file in the catalog's folder and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The first column of the first row of `sql` as an integer, on either engine: for tests that
    /// look at a table directly (`SELECT count(*) FROM guideProgramme`).
    func integer(_ sql: String) async throws -> Int? {
        switch database {
        case .sqlite(let database):
            return try await database.writer.read { db in try Int.fetchOne(db, sql: sql) }
        case .postgres(let database):
            return try await database.read { connection in
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: testLogger).collect()
                return try rows.first.map { Int(try $0.decode(Int64?.self) ?? 0) }
            }
        }
    }

    /// The text columns of every row of `sql`, on either engine (NULL as `nil`).
    func texts(_ sql: String) async throws -> [[String?]] {
        switch database {
        case .sqlite(let database):
            return try await database.writer.read { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { String.fromDatabaseValue($0) } }
            }
        case .postgres(let database):
            return try await database.read { connection in
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: testLogger).collect().map { row in
                    try row.map { try $0.decode(String?.self) }
                }
            }
        }
    }
}

let testLogger: Logger = {
    var logger = Logger(label: "catalog-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    logger.logLevel = .critical
    return logger
}()

enum Fixtures {
    /// Tests/CatalogTests/Fixtures.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// ../shared/data beside the repository.
    static var sharedData: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/data")
    }
}
