import Foundation
import Logging
import Synchronization
import Testing
import TunerApp
import TunerStorage

/// The command journal on a real SQLite file: a key is applied once, across a restart too.
@Suite struct CommandJournalTests {
    let folder: DataFolder

    init() throws {
        folder = try DataFolder(path: NSTemporaryDirectory() + "tuner-commands-\(UUID().uuidString)")
    }

    func journal(now: @escaping @Sendable () -> Date = Date.init) throws -> CommandJournal {
        CommandJournal(database: try folder.openDatabase(), logger: Logger(label: "test"), now: now)
    }

    static func runs(_ claim: CommandClaim) -> Bool {
        if case .run = claim { return true }
        return false
    }

    static let receipt = CommandReceipt(status: 201, contentType: "application/json", body: Array(#"{"id":7}"#.utf8))

    @Test("a key runs once; a resend gets the first answer, also from a new process on the same file")
    func aKeyIsAppliedOnceAcrossRestarts() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let first = try journal()
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
        #expect(Self.runs(try await first.claim(key: "k1", fingerprint: print, caller: "other")))
        // The same key for another request is refused.
        let other = CommandJournal.fingerprint(method: "POST", target: "/api/v1/transfers", body: Array("{ }".utf8))
        #expect(other != print)
        #expect(try await first.claim(key: "k1", fingerprint: other, caller: "owner") == .mismatch)

        // A new process: the finished key still replays; the one left pending was interrupted.
        let second = try journal()
        #expect(try await second.claim(key: "k1", fingerprint: print, caller: "owner") == .replay(Self.receipt))
        #expect(try await second.claim(key: "k1", fingerprint: print, caller: "other") == .interrupted)
    }

    @Test("an abandoned key (a server error) may run again")
    func anAbandonedKeyRunsAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let journal = try journal()
        guard case .run(let ticket) = try await journal.claim(key: "k", fingerprint: "f", caller: "owner") else {
            Issue.record("a new key must run")
            return
        }
        await journal.abandon(ticket)
        #expect(try await journal.claim(key: "k", fingerprint: "f", caller: "owner") == .run(ticket))
    }

    @Test("receipts older than a day are dropped; a long answer is kept without its body")
    func receiptsExpireAndLongBodiesAreNotKept() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder.path) }
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let journal = try journal(now: { clock.withLock { $0 } })
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
        #expect(try journal.prune() == 0)
        clock.withLock { $0 += 2 }
        #expect(try journal.prune() == 1)
        #expect(try journal.count() == 1)
        // Forgotten, so the key is new again.
        #expect(Self.runs(try await journal.claim(key: "old", fingerprint: "g", caller: "owner")))
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
