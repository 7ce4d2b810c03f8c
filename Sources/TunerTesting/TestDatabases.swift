import Foundation
import Logging
import PostgresNIO
import TunerStorage

/// The state engines a store's conformance suite runs on: SQLite always, PostgreSQL when the
/// tests have a server (``TestPostgres``).
public enum StorageEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }

    /// The engines to run on here: `.postgres` only when `TUNER_TEST_POSTGRES` names a server, or
    /// under `CI=true`, where a missing server must fail the tests rather than skip them.
    public static var underTest: [StorageEngine] {
        TestPostgres.isAvailable ? [.sqlite, .postgres] : [.sqlite]
    }
}

/// The PostgreSQL server of the tests: `TUNER_TEST_POSTGRES=postgres://postgres@127.0.0.1:PORT/postgres`
/// (what `scripts/test-postgres start DIR` prints; `.ci/run` starts one and exports it). Each test
/// gets a database of its own, dropped afterwards.
public enum TestPostgres {
    /// The server's address from the environment, if any.
    public static var serverAddress: PostgresAddress? {
        guard let text = ProcessInfo.processInfo.environment["TUNER_TEST_POSTGRES"], !text.isEmpty else { return nil }
        return try? PostgresAddress(url: text)
    }

    /// Whether PostgreSQL tests run: a server is configured, or CI requires one.
    public static var isAvailable: Bool {
        if serverAddress != nil { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        skipNotice.note()
        return false
    }

    /// A new empty database on the test server; `drop(_:)` removes it.
    public static func createDatabase() async throws -> PostgresAddress {
        guard let server = serverAddress else {
            throw TestPostgresError(
                "no PostgreSQL server for the tests: run `scripts/test-postgres start /tmp/pg` and export "
                    + "TUNER_TEST_POSTGRES with the URL it prints")
        }
        let name = "tuner_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await onServer(server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
        }
        return server.with(database: String(name))
    }

    /// Drops a database made by ``createDatabase()`` (connections to it are ended first).
    public static func drop(_ address: PostgresAddress) async {
        guard let server = serverAddress, address.database.hasPrefix("tuner_test_") else { return }
        try? await onServer(server) { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(address.database) WITH (FORCE)"),
                logger: Self.logger)
        }
    }

    /// Runs `body` with an open ``TunerPostgres`` on a new database with `schemas` applied;
    /// closes and drops it afterwards, whatever happened.
    public static func withDatabase<Result>(
        schemas: [any PostgresSchema.Type], options: TunerPostgres.Options = patientOptions,
        _ body: (TunerPostgres) async throws -> Result
    ) async throws -> Result {
        let address = try await createDatabase()
        do {
            let database = try await TunerPostgres.open(
                address: address, schemas: schemas, options: options, logger: logger)
            do {
                let result = try await body(database)
                await database.close()
                await drop(address)
                return result
            } catch {
                await database.close()
                throw error
            }
        } catch {
            await drop(address)
            throw error
        }
    }

    /// Runs `body` with a state database of `engine` holding `schemas`: SQLite in memory, or a new
    /// PostgreSQL database (dropped afterwards). Conformance suites call this once per engine.
    public static func withStateDatabase<Result>(
        _ engine: StorageEngine, schemas: [any StateSchema.Type], _ body: (StateDatabase) async throws -> Result
    ) async throws -> Result {
        switch engine {
        case .sqlite:
            return try await body(.sqlite(try TunerDatabase.inMemory(schemas: schemas)))
        case .postgres:
            return try await withDatabase(schemas: schemas) { database in try await body(.postgres(database)) }
        }
    }

    static let logger = Logger(label: "tuner.tests.postgres")

    /// The pool's settings in tests: the whole suite runs in parallel on two cores, where a
    /// connection can wait far longer than a server's 5 s lease timeout without anything being
    /// wrong; tests of a lost server stop it or close the pool, which fails at once.
    public static var patientOptions: TunerPostgres.Options {
        var options = TunerPostgres.Options()
        options.connectTimeout = .seconds(60)
        options.leaseTimeout = .seconds(120)
        return options
    }

    private static func onServer(
        _ server: PostgresAddress, _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private static let skipNotice = SkipNotice()
}

/// Prints once per test process why the PostgreSQL half of the suites does not run.
private final class SkipNotice: Sendable {
    private let printed = LockedState(false)

    func note() {
        let first = printed.withLock { value -> Bool in
            defer { value = true }
            return !value
        }
        if first {
            print(
                "note: PostgreSQL tests skipped: TUNER_TEST_POSTGRES is not set "
                    + "(`scripts/test-postgres start /tmp/pg` prints a URL for it; under CI=true they fail instead)")
        }
    }
}

/// A test database that cannot be made.
public struct TestPostgresError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
