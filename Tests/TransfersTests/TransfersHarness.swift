import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import MediaFormats
import NIOConcurrencyHelpers
import Testing
import TunerStorage
import TunerTesting

@testable import Transfers

/// A data folder, a store of either engine, a manager with short timings and the file executor,
/// against a TestOrigin of its own.
final class TransfersHarness: Sendable {
    let directory: String
    let origin: TestOrigin
    let database: HarnessDatabase
    let store: any TransferStore
    let manager: TransferManager
    let httpClient: HTTPClient

    /// Short backoffs and syncs; a long stall timeout, so a loaded machine never looks stalled
    /// (the stall test sets its own).
    static let fastConfiguration = TransferManager.Configuration(
        maximumActive: 3, maximumActivePerHost: 2, stallTimeout: 30,
        retryPolicy: RetryPolicy(baseDelay: 0.05, multiplier: 2, maximumDelay: 0.2, jitter: 0.5, maximumAttempts: 6),
        progressInterval: 0.1,
        tuning: TransferTuning(syncBytes: 256 << 10, syncInterval: 0.2, writeBufferBytes: 64 << 10))

    /// A harness on `engine`; one reopening a kept folder passes the first one's `database`.
    init(
        engine: StorageEngine = .sqlite,
        configuration: TransferManager.Configuration = TransfersHarness.fastConfiguration,
        origin: TestOrigin? = nil, directory: String? = nil, database: HarnessDatabase? = nil, start: Bool = true
    ) async throws {
        let directory = directory ?? NSTemporaryDirectory() + "transfers-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        if let database { self.database = database } else { self.database = try await HarnessDatabase(engine: engine) }
        if let origin { self.origin = origin } else { self.origin = try await TestOrigin.start() }
        store = try await self.database.makeStore(directory: directory)
        var logger = Logger(label: "transfers-test")
        logger.logLevel = .warning
        manager = try await TransferManager(
            store: store, dataDirectory: directory, configuration: configuration, logger: logger)
        httpClient = Self.sharedClient
        await manager.register(FileDownloadExecutor(httpClient: httpClient))
        if start { await manager.start() }
    }

    /// One client for every test: a failing test that never reaches `close()` must not leave a
    /// client to be deinitialised unshut (AsyncHTTPClient traps on that).
    static let sharedClient = FileDownloadExecutor.makeHTTPClient()

    /// Stops the manager and the client; keeps the folder and origin when `keep` is set (reopen tests).
    func close(keepFiles: Bool = false, keepOrigin: Bool = false) async {
        await manager.shutdown()
        if !keepOrigin { try? await origin.shutdown() }
        if !keepFiles {
            try? FileManager.default.removeItem(atPath: directory)
            await database.dispose()
        }
    }

    func url(_ name: String, size: Int, _ query: String = "") -> String {
        origin.baseURL + "/files/\(name)?size=\(size)" + (query.isEmpty ? "" : "&" + query)
    }

    static func sha256(name: String, version: Int = 0, size: Int) -> String {
        SHA256.hash(data: TestOrigin.content(name: name, version: version, range: 0..<size)).map {
            String(format: "%02x", $0)
        }.joined()
    }

    func sha256(ofDownload name: String) throws -> String {
        try FileDownloadExecutor.sha256(ofFile: directory + "/downloads/" + name)
    }

    /// Waits (at most `seconds`) until the task is finished; fails the test instead of hanging.
    func waitFinished(_ id: Int64, seconds: Double = 180) async throws -> TransferTask {
        let manager = self.manager
        return try await withThrowingTaskGroup(of: TransferTask?.self) { group in
            group.addTask { await manager.waitUntilFinished(ids: [id]).first }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let task = first else {
                let task = await manager.task(id: id)
                Issue.record("transfer \(id) did not finish within \(seconds) s: \(String(describing: task))")
                throw CancellationError()
            }
            return task
        }
    }

    /// Waits until `condition` holds for the task (polling), at most `seconds`.
    func waitFor(_ id: Int64, seconds: Double = 120, _ condition: @Sendable (TransferTask) -> Bool) async throws
        -> TransferTask
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let task = await manager.task(id: id), condition(task) { return task }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        Issue.record(
            "transfer \(id) never reached the expected condition: \(String(describing: await manager.task(id: id)))")
        throw CancellationError()
    }

    /// Waits until the task has committed at least `bytes`.
    func waitForCommitted(_ id: Int64, atLeast bytes: Int64) async throws {
        _ = try await waitFor(id) { $0.committedBytes >= bytes }
    }

    func partialSize(_ task: TransferTask) -> Int64? {
        (try? FileManager.default.attributesOfItem(
            atPath: directory + "/downloads/" + task.destinationName + ".partial"))
            .flatMap { ($0[.size] as? NSNumber)?.int64Value }
    }
}

/// Where a harness keeps its tasks: the folder's SQLite file, or a PostgreSQL database of its own
/// (made on the test server, dropped by ``dispose()``) that a reopening harness shares.
final class HarnessDatabase: Sendable {
    let engine: StorageEngine
    let address: PostgresAddress?
    private let pools = NIOLockedValueBox<[TunerPostgres]>([])

    init(engine: StorageEngine) async throws {
        self.engine = engine
        address = engine == .postgres ? try await TestPostgres.createDatabase() : nil
    }

    /// A new store (a new pool on PostgreSQL, as a restarted process would open).
    func makeStore(directory: String) async throws -> any TransferStore {
        guard let address else { return try SQLiteTransferStore(path: directory + "/tuner.sqlite") }
        var logger = Logger(label: "transfers-test")
        logger.logLevel = .warning
        let pool = try await TunerPostgres.open(
            address: address, schemas: [TransferSchema.self], options: TestPostgres.patientOptions, logger: logger)
        pools.withLockedValue { $0.append(pool) }
        return PostgresTransferStore(database: pool, logger: logger)
    }

    /// Closes the pools and drops the PostgreSQL database.
    func dispose() async {
        for pool in pools.withLockedValue({ $0 }) { await pool.close() }
        if let address { await TestPostgres.drop(address) }
    }
}
