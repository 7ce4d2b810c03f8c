import Foundation
import Logging
import Testing
import TunerStorage
import TunerTesting

@testable import Transfers

/// The ``TransferStore`` contract, the same on both engines: tasks stored and read back field for
/// field, and claims that one worker holds at a time.
@Suite struct TransferStoreTests {
    static let logger: Logger = {
        var logger = Logger(label: "transfer-store-test")
        logger.logLevel = .warning
        return logger
    }()

    /// Runs `body` with a store of `engine` on an empty database.
    static func withStore(_ engine: StorageEngine, _ body: (any TransferStore) async throws -> Void) async throws {
        try await TestPostgres.withStateDatabase(engine, schemas: [TransferSchema.self]) { database in
            try await body(database.transferStore(logger: logger))
        }
    }

    /// A task with every field set (dates in whole milliseconds, which both engines keep exactly).
    static func fullTask(_ name: String, state: TransferState = .waiting, priority: Int = 0, position: Int64 = 0)
        -> TransferTask
    {
        TransferTask(
            kind: .downloadHLS, sourceURL: "https://h.example/\(name).m3u8?token=a%20b",
            headers: [TransferHeader(name: "Referer", value: "https://h.example/é")], destinationName: name,
            priority: priority, position: position, state: state, committedBytes: 1234, totalBytes: 99_999,
            expectedSHA256: String(repeating: "ab", count: 32), etag: "\"v1\"", lastModified: "Tue, 01 Dec 2026",
            errorReason: "attempt failed: reset", errorClass: .needsNewURL, retryCount: 3,
            nextAttemptAt: Date(timeIntervalSince1970: 1_764_142_800.25),
            history: [
                TransferHistoryEntry(at: Date(timeIntervalSince1970: 1_764_142_000.5), message: "added \"quoted\" 🎬")
            ],
            properties: ["finalName": name, "rendition": "720p"], createdAt: Date(timeIntervalSince1970: 1_764_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_764_000_001.125))
    }

    static func plainTask(_ name: String, state: TransferState = .waiting, priority: Int = 0, position: Int64 = 0)
        -> TransferTask
    {
        TransferTask(
            kind: .downloadFile, sourceURL: "http://h.example/\(name)", destinationName: name, priority: priority,
            position: position, state: state, createdAt: Date(timeIntervalSince1970: 1_764_000_000),
            updatedAt: Date(timeIntervalSince1970: 1_764_000_000))
    }

    @Test(arguments: StorageEngine.underTest)
    func tasksReadBackFieldForField(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            let drafts = [Self.fullTask("a"), Self.plainTask("b"), Self.fullTask("c", state: .error)]
            let stored = try await store.insert(drafts)
            #expect(stored.map(\.id) == stored.map(\.id).sorted())
            #expect(Set(stored.map(\.id)).count == 3)
            #expect(stored.map(\.destinationName) == ["a", "b", "c"])
            var loaded = try await store.loadAll().sorted { $0.id < $1.id }
            #expect(loaded == stored)

            var changed = stored[1]
            changed.state = .complete
            changed.committedBytes = 5000
            changed.totalBytes = 5000
            changed.errorClass = .transient
            changed.record("complete (5000 bytes)", at: Date(timeIntervalSince1970: 1_764_000_002.5))
            try await store.update([changed])
            #expect(try await store.load(ids: [changed.id, 12345]) == [changed])

            try await store.delete(ids: [stored[0].id, stored[2].id])
            loaded = try await store.loadAll()
            #expect(loaded == [changed])
            #expect(try await store.insert([]).isEmpty)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func aClaimIsHeldByOneWorkerUntilItExpiresOrIsReleased(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            let tasks = try await store.insert([
                Self.plainTask("w"), Self.plainTask("p", state: .paused), Self.plainTask("c", state: .complete),
                Self.plainTask("a", state: .active),
            ])
            let ids = tasks.map(\.id)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let later = now.addingTimeInterval(60)
            // Only waiting and active tasks can be claimed.
            #expect(try await store.claim(ids: ids, by: "A", until: later, now: now) == [ids[0], ids[3]])
            // A live claim keeps others out; its holder may claim again.
            #expect(try await store.claim(ids: ids, by: "B", until: later, now: now).isEmpty)
            #expect(try await store.claim(ids: [ids[0]], by: "A", until: later, now: now) == [ids[0]])
            // Released by someone else: nothing happens.
            try await store.releaseClaims(ids: [ids[0]], by: "B")
            #expect(try await store.claim(ids: [ids[0]], by: "B", until: later, now: now).isEmpty)
            // Released by its holder (with a write): free.
            try await store.update([tasks[0]], releasingClaims: [ids[0]], by: "A")
            #expect(try await store.claim(ids: [ids[0]], by: "B", until: later, now: now) == [ids[0]])

            // Renewed, a claim outlives its first expiry; expired, another worker takes it.
            let renewed = try await store.renewClaims(by: "A", until: later.addingTimeInterval(60))
            #expect(renewed == [ids[3]])
            #expect(
                try await store.claim(ids: [ids[3]], by: "B", until: later, now: later.addingTimeInterval(1)).isEmpty)
            let expired = later.addingTimeInterval(61)
            #expect(
                try await store.claim(ids: [ids[3]], by: "B", until: expired.addingTimeInterval(60), now: expired)
                    == [ids[3]])
            // The worker that lost it finds out when it renews.
            #expect(try await store.renewClaims(by: "A", until: expired.addingTimeInterval(60)).isEmpty)
            #expect(try await store.renewClaims(by: "B", until: expired.addingTimeInterval(60)) == [ids[0], ids[3]])
            // A finished task is not claimable, whoever held it.
            var finished = tasks[3]
            finished.state = .complete
            try await store.update([finished], releasingClaims: [ids[3]], by: "B")
            #expect(try await store.claim(ids: [ids[3]], by: "A", until: expired, now: expired).isEmpty)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func theQueueHandsOutDueWaitingTasksInPriorityThenPositionOrder(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            var backingOff = Self.plainTask("later", priority: 9, position: 0)
            backingOff.nextAttemptAt = now.addingTimeInterval(30)
            var due = Self.plainTask("due", priority: 0, position: 5)
            due.nextAttemptAt = now.addingTimeInterval(-1)
            let tasks = try await store.insert([
                Self.plainTask("low", priority: 0, position: 1), Self.plainTask("high", priority: 5, position: 9),
                Self.plainTask("paused", state: .paused, priority: 9), backingOff, due,
                Self.plainTask("first", priority: 0, position: 0),
            ])
            let byName = Dictionary(uniqueKeysWithValues: tasks.map { ($0.destinationName, $0.id) })
            let until = now.addingTimeInterval(60)
            #expect(
                try await store.claimNext(limit: 3, by: "A", until: until, now: now)
                    == [byName["high"]!, byName["first"]!, byName["low"]!])
            #expect(try await store.claimNext(limit: 3, by: "B", until: until, now: now) == [byName["due"]!])
            #expect(try await store.claimNext(limit: 3, by: "B", until: until, now: now).isEmpty)
            #expect(try await store.claimNext(limit: 0, by: "B", until: until, now: now).isEmpty)
        }
    }

    /// Two workers with stores of their own (two pools on PostgreSQL, two connections to one file
    /// on SQLite) claiming at the same time, round after round: no task is ever held by both.
    @Test(arguments: StorageEngine.underTest)
    func twoWorkersClaimingAtOnceNeverBothGetATask(engine: StorageEngine) async throws {
        let database = try await HarnessDatabase(engine: engine)
        let directory = NSTemporaryDirectory() + "transfer-claims-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let stores = [
                try await database.makeStore(directory: directory), try await database.makeStore(directory: directory),
            ]
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let until = now.addingTimeInterval(60)
            for round in 0..<12 {
                let ids = try await stores[0].insert((0..<40).map { Self.plainTask("r\(round)-\($0)") }).map(\.id)
                // Half the rounds through the queue, half by naming overlapping tasks, as managers do.
                let held = try await withThrowingTaskGroup(of: (Int, [Int64]).self) { group in
                    for worker in 0..<2 {
                        group.addTask {
                            var mine: [Int64] = []
                            for step in 0..<12 {
                                if round % 2 == 0 {
                                    mine += try await stores[worker].claimNext(
                                        limit: 3, by: "worker-\(worker)", until: until, now: now)
                                } else {
                                    let wanted = Array(ids.shuffled().prefix(8 + step % 3))
                                    mine += try await stores[worker].claim(
                                        ids: wanted, by: "worker-\(worker)", until: until, now: now)
                                }
                            }
                            return (worker, mine)
                        }
                    }
                    var held: [Int: [Int64]] = [:]
                    for try await (worker, mine) in group { held[worker] = mine }
                    return held
                }
                let first = Set(held[0] ?? [])
                let second = Set(held[1] ?? [])
                #expect(first.isDisjoint(with: second), "round \(round): both hold \(first.intersection(second))")
                if round % 2 == 0 {
                    // Through the queue, a worker never gets a task twice either.
                    #expect(first.count == held[0]?.count && second.count == held[1]?.count)
                    #expect(first.union(second) == Set(ids), "round \(round): the queue hands out every task")
                }
                // Each store agrees about who holds what.
                #expect(Set(try await stores[0].renewClaims(by: "worker-0", until: until)).isSuperset(of: first))
                #expect(Set(try await stores[1].renewClaims(by: "worker-1", until: until)).isSuperset(of: second))
                var finished = try await stores[0].load(ids: ids)
                for index in finished.indices { finished[index].state = .complete }
                try await stores[0].update(finished)
            }
        } catch {
            await database.dispose()
            throw error
        }
        await database.dispose()
    }
}
