import Logging
import NIOCore
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// Tuner's state in a PostgreSQL database: one connection pool (postgres-nio's `PostgresClient`),
/// one migrator for every module's ``PostgresSchema``, and the translation of a lost server into
/// ``StorageUnavailableError`` (which the API answers with 503 and `Retry-After`).
///
/// The twin of ``TunerDatabase``: stores take one of these and use ``read(_:)`` (one connection)
/// and ``write(_:)`` (one transaction). The pool reconnects by itself with backoff when the server
/// comes back; a request that finds no connection within ``Options/leaseTimeout`` fails at once
/// instead of waiting for the pool's one-minute circuit breaker.
public final class TunerPostgres: Sendable {
    /// What the pool may do.
    public struct Options: Sendable {
        /// Connections at most (PostgreSQL's default server allows 100 for everyone).
        public var maximumConnections = 12
        /// How long opening a connection may take.
        public var connectTimeout: Duration = .seconds(5)
        /// How long a request waits for a connection before it fails as unavailable.
        public var leaseTimeout: Duration = .seconds(5)

        public init() {}
    }

    /// The server and database (its ``PostgresAddress/description`` hides the password).
    public let address: PostgresAddress
    /// The pool. Stores use ``read(_:)`` and ``write(_:)``; the client is here for `COPY` and tests.
    public let client: PostgresClient
    let logger: Logger
    let options: Options
    /// The pool's run loop: it lives as long as this object (``close()`` ends it).
    private let runner: Task<Void, Never>

    /// Connects to `address`, checks that the server answers and applies every migration of
    /// `schemas` (one node at a time: the migrator holds an advisory lock). Throws
    /// ``StorageUnavailableError`` naming the address when the server cannot be reached.
    public static func open(
        address: PostgresAddress, schemas: [any PostgresSchema.Type], options: Options = Options(), logger: Logger
    ) async throws -> TunerPostgres {
        let database = TunerPostgres(address: address, options: options, logger: logger)
        do {
            try await database.read { connection in
                _ = try await connection.query("SELECT 1", logger: logger)
            }
            try await PostgresMigrator(schemas: schemas).migrate(database)
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    private init(address: PostgresAddress, options: Options, logger: Logger) {
        var configuration = PostgresClient.Configuration(
            host: address.host, port: address.port, username: address.username, password: address.password,
            database: address.database, tls: Self.tls(address.tls))
        configuration.options.maximumConnections = options.maximumConnections
        configuration.options.connectTimeout = options.connectTimeout
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(30))
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.address = address
        self.client = client
        self.logger = logger
        self.options = options
        // Unstructured: the pool must run for as long as any store uses this database, which is
        // the composition root's lifetime, not a caller's scope; close() cancels it.
        runner = Task { await client.run() }
    }

    /// Ends the pool: connections close, waiting requests fail. Idempotent.
    public func close() async {
        runner.cancel()
        _ = await runner.value
    }

    /// Runs `body` on one pooled connection (no transaction: each statement commits by itself).
    public func read<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await leased { connection in try await body(connection) }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        return try await leased { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    /// Leases a connection within ``Options/leaseTimeout`` and runs `body` on it, translating a
    /// lost server into ``StorageUnavailableError``: at once when the connection closes, even if
    /// postgres-nio never answers what `body` awaits (``ConnectionLossWatch``).
    private func leased<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = LeaseFlag()
        let client = client
        let timeout = options.leaseTimeout
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        lease.set()
                        return try await ConnectionLossWatch.shared.run(on: connection) {
                            try await body(connection)
                        }
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    if !Task.isCancelled, !lease.isSet { throw LeaseTimedOut() }
                    return nil
                }
                while let next = try await group.next() {
                    if let result = next {
                        group.cancelAll()
                        return result
                    }
                }
                throw LeaseTimedOut()
            }
        } catch {
            throw translate(error)
        }
    }

    /// A lost or unreachable server becomes ``StorageUnavailableError``; other errors pass.
    func translate(_ error: any Error) -> any Error {
        if error is StorageUnavailableError { return error }
        // A transaction's own failure is what its body threw, else what BEGIN/COMMIT/ROLLBACK did.
        if let error = error as? PostgresTransactionError {
            if let thrown = error.closureError { return translate(thrown) }
            if let failure = error.beginError ?? error.commitError ?? error.rollbackError { return translate(failure) }
        }
        if error is ConnectionLost {
            return StorageUnavailableError(
                address: address.description, reason: "the connection closed mid-request", kind: .connectionLost)
        }
        if error is LeaseTimedOut || error is ConnectionPoolError {
            return StorageUnavailableError(
                address: address.description, reason: "no connection within the lease timeout")
        }
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .sslUnsupported, .failedToAddSSLHandler, .poolClosed:
                return StorageUnavailableError(address: address.description, reason: "\(error.code)")
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                return StorageUnavailableError(
                    address: address.description, reason: "\(error.code)", kind: .connectionLost)
            case .server:
                // 08: connection exception; 57P01–57P03: the server is shutting down or starting.
                let state = error.serverInfo?[.sqlState] ?? ""
                if state.hasPrefix("08") || state.hasPrefix("57P") {
                    return StorageUnavailableError(
                        address: address.description, reason: "server state \(state)", kind: .serverUnavailable)
                }
            default:
                break
            }
        }
        return error
    }

    /// A connection of its own, outside the pool, for state that lives as long as a session does
    /// (advisory locks: a cluster node's live claims, which die with it). The caller closes it.
    public func connectAlone(id: Int) async throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch address.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var configuration = PostgresConnection.Configuration(
                host: address.host, port: address.port, username: address.username, password: address.password,
                database: address.database, tls: tls)
            configuration.options.connectTimeout = .init(options.connectTimeout)
            return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        } catch {
            throw translate(error)
        }
    }

    private static func tls(_ mode: PostgresAddress.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }
}

/// The state database cannot be reached now: retry later (the API answers 503 with `Retry-After`).
public struct StorageUnavailableError: Error, Sendable, CustomStringConvertible {
    /// Why no answer came.
    public enum Kind: String, Sendable {
        /// No connection could be had in time (the server is down, unreachable or refusing).
        case noConnection
        /// The server closed the connection in the middle of the work.
        case connectionLost
        /// The server said it is shutting down or starting up.
        case serverUnavailable
    }

    public let kind: Kind
    /// The server's address, without its password.
    public let address: String
    public let reason: String

    public init(address: String, reason: String, kind: Kind = .noConnection) {
        self.kind = kind
        self.address = address
        self.reason = reason
    }

    public var description: String {
        "the database at \(address) cannot be reached (\(reason)); Tuner retries by itself, try again shortly"
    }
}

private struct LeaseTimedOut: Error {}

/// Set once a connection is leased, so the lease timer knows the request is being served.
private final class LeaseFlag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var isSet: Bool { state.withLock { $0 } }
}
