import Foundation
import Logging
import Synchronization
import Testing
import TunerApp
import TunerStorage
import TunerTesting

/// The command journal on both engines: a key is applied once, across a restart too (a second
/// journal on the same database is a new process).
@Suite struct CommandJournalTests {
    static func withDatabase(_ engine: StorageEngine, _ body: (StateDatabase) async throws -> Void) async throws {
        try await TestPostgres.withStateDatabase(engine, schemas: [CommandSchema.self], body)
    }

    static func journal(_ database: StateDatabase, now: @escaping @Sendable () -> Date = Date.init)
        -> CommandJournal
    {
        CommandJournal(database: database, logger: Logger(label: "test"), now: now)
    }

    static func runs(_ claim: CommandClaim) -> Bool {
        if case .run = claim { return true }
        return false
    }

    static let receipt = CommandReceipt(status: 201, contentType: "application/json", body: Array(#"{"id":7}"#.utf8))

    @Test(
        "a key runs once; a resend gets the first answer, also from a new process on the same database",
        arguments: StorageEngine.underTest)
    func aKeyIsAppliedOnceAcrossRestarts(engine: StorageEngine) async throws {
        try await Self.withDatabase(engine) { database in try await Self.appliedOnce(database) }
    }

    static func appliedOnce(_ database: StateDatabase) async throws {
        let first = journal(database)
        let print = CommandJournal.fingerprint(method: "post", target: "/api/v1/transfers", body: Array("{}".utf8))
        guard case .run(let ticket) = try await first.claim(key: "k1", fingerprint: print, caller: "owner") else {
            Issue.record("a new key must run")
            return
        }
        // While it runs, a resend races it.
        #expect(try await first.claim(key: "k1", fingerprint: print, caller: "owner") == .inProgress)
        try await first.finish(ticket, with: Self.receipt)
        #expect(try await first.claim(key: "k1", fingerprint: print, caller: "owner") == .replay(Self.receipt))
        // Another caller's same key is its own.
        #expect(runs(try await first.claim(key: "k1", fingerprint: print, caller: "other")))
        // The same key for another request is refused.
        let other = CommandJournal.fingerprint(method: "POST", target: "/api/v1/transfers", body: Array("{ }".utf8))
        #expect(other != print)
        #expect(try await first.claim(key: "k1", fingerprint: other, caller: "owner") == .mismatch)

        // A new process: the finished key still replays; the one left pending was interrupted.
        let second = journal(database)
        #expect(try await second.claim(key: "k1", fingerprint: print, caller: "owner") == .replay(Self.receipt))
        #expect(try await second.claim(key: "k1", fingerprint: print, caller: "other") == .interrupted)
    }

    @Test("an abandoned key (a server error) may run again", arguments: StorageEngine.underTest)
    func anAbandonedKeyRunsAgain(engine: StorageEngine) async throws {
        try await Self.withDatabase(engine) { database in
            let journal = Self.journal(database)
            guard case .run(let ticket) = try await journal.claim(key: "k", fingerprint: "f", caller: "owner") else {
                Issue.record("a new key must run")
                return
            }
            await journal.abandon(ticket)
            #expect(try await journal.claim(key: "k", fingerprint: "f", caller: "owner") == .run(ticket))
        }
    }

    @Test(
        "receipts older than a day are dropped; a long answer is kept without its body",
        arguments: StorageEngine.underTest)
    func receiptsExpireAndLongBodiesAreNotKept(engine: StorageEngine) async throws {
        try await Self.withDatabase(engine) { database in try await Self.expiry(database) }
    }

    static func expiry(_ database: StateDatabase) async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let journal = journal(database, now: { clock.withLock { $0 } })
        guard case .run(let old) = try await journal.claim(key: "old", fingerprint: "f", caller: "owner") else {
            Issue.record("a new key must run")
            return
        }
        let long = CommandReceipt(
            status: 200, contentType: "application/json",
            body: Array(repeating: 0x20, count: CommandJournal.maxStoredBodySize + 1))
        try await journal.finish(old, with: long)
        #expect(
            try await journal.claim(key: "old", fingerprint: "f", caller: "owner")
                == .replay(CommandReceipt(status: 200, contentType: "application/json", body: [])))
        clock.withLock { $0 += CommandJournal.retention - 1 }
        _ = try await journal.claim(key: "young", fingerprint: "f", caller: "owner")
        #expect(try await journal.prune() == 0)
        clock.withLock { $0 += 2 }
        #expect(try await journal.prune() == 1)
        #expect(try await journal.count() == 1)
        // Forgotten, so the key is new again.
        #expect(Self.runs(try await journal.claim(key: "old", fingerprint: "g", caller: "owner")))
    }

    @Test(
        "two nodes (two pools on one PostgreSQL database) claiming one key at once: exactly one runs it",
        .enabled(if: TestPostgres.isAvailable))
    func concurrentClaimsOnTwoNodesRunOnce() async throws {
        let address = try await TestPostgres.createDatabase()
        var pools: [TunerPostgres] = []
        do {
            for _ in 0..<2 {
                pools.append(
                    try await TunerPostgres.open(
                        address: address, schemas: [CommandSchema.self], options: TestPostgres.patientOptions,
                        logger: Logger(label: "test")))
            }
            let journals = pools.map { Self.journal(.postgres($0)) }
            for round in 0..<40 {
                let key = "key-\(round)"
                // Four requests with one key: two on each node.
                let claims = try await withThrowingTaskGroup(of: CommandClaim.self) { group in
                    for index in 0..<4 {
                        let journal = journals[index % 2]
                        group.addTask { try await journal.claim(key: key, fingerprint: "f", caller: "owner") }
                    }
                    var claims: [CommandClaim] = []
                    for try await claim in group { claims.append(claim) }
                    return claims
                }
                #expect(claims.filter(Self.runs).count == 1, "round \(round): \(claims)")
                #expect(claims.allSatisfy { Self.runs($0) || $0 == .inProgress || $0 == .interrupted })
            }
            #expect(try await journals[0].count() == 40)
        } catch {
            for pool in pools { await pool.close() }
            await TestPostgres.drop(address)
            throw error
        }
        for pool in pools { await pool.close() }
        await TestPostgres.drop(address)
    }

    @Test(
        "keys: UUIDs, hex and quoted strings pass; empty, too long, spaces, quotes inside and control bytes do not",
        arguments: [
            ("3f2504e0-4f89-11d3-9a0c-0305e82c3301", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
            ("\"abc123\"", "abc123"), ("  a+b/c=  ", "a+b/c="),
            ("", nil), ("\"\"", nil), ("a b", nil), ("a\"b", nil), ("a\u{0}b", nil), ("é", nil),
            (String(repeating: "a", count: 256), nil),
            (String(repeating: "a", count: 255), String(repeating: "a", count: 255)),
        ] as [(String, String?)])
    func keysAreValidated(header: String, key: String?) {
        #expect((try? CommandJournal.key(fromHeader: header)) == key)
    }
}
