import Foundation
import Logging
import PostgresNIO
import Testing
import TunerStorage
import TunerTesting

/// The PostgreSQL facade itself: migrations applied once and in order, a lost server reported as
/// ``StorageUnavailableError`` naming the address (never the password).
@Suite struct TunerPostgresTests {
    enum Sample: PostgresSchema {
        static let postgresMigrations = [
            PostgresMigration("sample-v1", ["CREATE TABLE sample (id BIGINT PRIMARY KEY, name TEXT NOT NULL)"]),
            PostgresMigration("sample-v2", ["ALTER TABLE sample ADD COLUMN note TEXT"]),
        ]
    }

    @Test(.enabled(if: TestPostgres.isAvailable))
    func migrationsApplyOnceInOrder() async throws {
        let address = try await TestPostgres.createDatabase()
        defer { Task { await TestPostgres.drop(address) } }
        let logger = Logger(label: "test")
        for _ in 0..<2 {
            let database = try await TunerPostgres.open(
                address: address, schemas: [Sample.self], options: TestPostgres.patientOptions, logger: logger)
            let applied = try await database.read { connection in
                var names: [String] = []
                for try await name in try await connection.query(
                    "SELECT identifier FROM tuner_migrations ORDER BY applied_at, identifier", logger: logger
                ).decode(String.self) {
                    names.append(name)
                }
                return names
            }
            #expect(applied == ["sample-v1", "sample-v2"])
            let id = Int64.random(in: 1...1_000_000_000)
            try await database.write { connection in
                _ = try await connection.query(
                    "INSERT INTO sample (id, name, note) VALUES (\(id), 'a', 'b')", logger: logger)
            }
            await database.close()
        }
    }

    @Test(.enabled(if: TestPostgres.isAvailable))
    func aWriteThatThrowsLeavesNothing() async throws {
        try await TestPostgres.withDatabase(schemas: [Sample.self]) { database in
            let logger = Logger(label: "test")
            struct Abort: Error {}
            await #expect(throws: Abort.self) {
                try await database.write { connection in
                    try await connection.query("INSERT INTO sample (id, name) VALUES (1, 'x')", logger: logger)
                    throw Abort()
                }
            }
            let count = try await database.read { connection in
                try await connection.query("SELECT count(*) FROM sample", logger: logger).collect().first?
                    .decode(Int64.self)
            }
            #expect(count == 0)
        }
    }

    @Test func anUnreachableServerIsNamedWithoutItsPassword() async throws {
        let port = try RefusingPort()
        let address = try PostgresAddress(url: "postgres://tuner:hunter2-secret@127.0.0.1:\(port.port)/tuner")
        var options = TunerPostgres.Options()
        options.connectTimeout = .seconds(2)
        options.leaseTimeout = .seconds(2)
        do {
            _ = try await TunerPostgres.open(
                address: address, schemas: [], options: options, logger: Logger(label: "test"))
            Issue.record("opened a database on a refusing port")
        } catch let error as StorageUnavailableError {
            #expect(error.description.contains("postgres://tuner@127.0.0.1:\(port.port)/tuner"))
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test func addressesParseAndHideTheirPassword() throws {
        let address = try PostgresAddress(url: "postgres://ann:s3cret@db.lan:6543/tuner?sslmode=require")
        #expect(address.host == "db.lan")
        #expect(address.port == 6543)
        #expect(address.username == "ann")
        #expect(address.password == "s3cret")
        #expect(address.tls == .require)
        #expect(address.description == "postgres://ann@db.lan:6543/tuner")
        #expect(!"\(DatabaseLocation.postgres(address))".contains("s3cret"))
        #expect(throws: StorageConfigurationError.self) { try PostgresAddress(url: "postgres://db.lan/tuner") }
        #expect(throws: StorageConfigurationError.self) { try PostgresAddress(url: "postgres://ann@db.lan") }
        #expect(throws: StorageConfigurationError.self) { try PostgresAddress(url: "mysql://ann@db.lan/x") }
        #expect(throws: StorageConfigurationError.self) {
            try PostgresAddress(url: "postgres://ann@db.lan/x?sslmode=on")
        }
        #expect(try DatabaseLocation("sqlite:/tmp/x.sqlite") == .sqlite(path: "/tmp/x.sqlite"))
        // Another scheme's error quotes the scheme only: a password may follow it.
        let other = #expect(throws: StorageConfigurationError.self) { try DatabaseLocation("mysql://a:pw@h/d") }
        #expect(other?.description.contains("'mysql'") == true && other?.description.contains("pw") == false)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try "from-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try PostgresAddress(url: "postgres://ann@h/d", passwordFile: file).password == "from-file")
        #expect(try PostgresAddress(url: "postgres://ann@h/d", environment: ["PGPASSWORD": "env"]).password == "env")
    }
}
