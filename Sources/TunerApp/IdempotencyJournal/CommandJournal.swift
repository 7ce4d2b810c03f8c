import Crypto
import Foundation
import Logging
import Synchronization
import TunerStorage

/// Applies each client-made idempotency key once: the first request with a key runs and its
/// answer is kept; a resend with the same key (after a timeout, a dropped connection, a restart)
/// gets that answer back and changes nothing.
///
/// Keys live in the state database (``CommandSchema``; SQLite, or PostgreSQL shared by several
/// nodes), so an acknowledged command stays applied-once across restarts. A key is claimed (a
/// pending row) before the request runs and finished with its answer after, in two transactions:
/// a key whose request is still running answers ``CommandClaim/inProgress``, and one whose
/// server stopped in between answers ``CommandClaim/interrupted`` for good, since the command may
/// or may not have taken effect and running it again could apply it twice.
/// Receipts are kept ``retention`` (24 hours), as payment APIs do, and the oldest are dropped past
/// ``maxReceipts``.
public final class CommandJournal: Sendable {
    /// How long a key is remembered.
    public static let retention: TimeInterval = 24 * 3600
    /// At most this many receipts are kept; past it the oldest go first.
    public static let maxReceipts = 100_000
    /// Answers longer than this are not kept (command answers are small JSON); their replay has
    /// the status but no body.
    public static let maxStoredBodySize = 256 * 1024
    /// A key is 1 to 255 characters of this set (letters, digits and `-_.:+/=`): a UUID, a hex or
    /// base64 string all fit.
    public static let maxKeyLength = 255

    private let records: any CommandRecordStore
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// This process: pending rows of another one were interrupted.
    private let process = UUID().uuidString
    /// Claims since the last prune: every ``pruneInterval``-th claim prunes, so the table stays
    /// bounded in a server that runs for months.
    private let claimsSincePrune = Mutex(0)
    private static let pruneInterval = 1024

    /// The journal in `database`, which must have been opened with ``CommandSchema``.
    public init(database: StateDatabase, logger: Logger, now: @escaping @Sendable () -> Date = Date.init) {
        switch database {
        case .sqlite(let database): records = SQLiteCommandRecordStore(database: database)
        case .postgres(let database): records = PostgresCommandRecordStore(database: database, logger: logger)
        }
        self.logger = logger
        self.now = now
    }

    /// The journal in a SQLite ``TunerDatabase``.
    public convenience init(
        database: TunerDatabase, logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(database: .sqlite(database), logger: logger, now: now)
    }

    /// The key of an `Idempotency-Key` header: the value itself, or the string inside quotes
    /// (the IETF draft's structured-field form). Throws `invalid` for anything else.
    public static func key(fromHeader value: String) throws -> String {
        var text = Substring(value.trimmingCharacters(in: .whitespaces))
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        guard (1...maxKeyLength).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default: return "-_.:+/=".utf8.contains(byte)
                }
            })
        else {
            throw FeatureError.invalid(
                """
                the Idempotency-Key header must be 1 to \(maxKeyLength) letters, digits or -_.:+/= \
                (a random UUID or hex string): send a new key made that way
                """)
        }
        return String(text)
    }

    /// What identifies a request for its key: method, path with query, and the body's SHA-256.
    public static func fingerprint(method: String, target: String, body: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(data: Array(body))
        let digest = hash.finalize().map { String(format: "%02x", $0) }.joined()
        return "\(method.uppercased()) \(target) \(digest)"
    }

    /// Claims `key` for a request with `fingerprint`, or says why it must not run.
    /// Async, as are ``finish(_:with:)`` and ``abandon(_:)``: they run in request handlers, and
    /// the stores' async writes wait for the database without holding a thread.
    public func claim(key: String, fingerprint: String, caller: String) async throws -> CommandClaim {
        let due = claimsSincePrune.withLock { count in
            count += 1
            guard count >= Self.pruneInterval else { return false }
            count = 0
            return true
        }
        if due {
            let cutoff = now().timeIntervalSince1970 - Self.retention
            do {
                _ = try await records.prune(before: cutoff, keep: Self.maxReceipts)
            } catch {
                if error is StorageUnavailableError { throw error }
                throw FeatureError(.failed, "could not prune the command journal: \(error)")
            }
        }
        do {
            return try await records.claim(
                key: key, fingerprint: fingerprint, caller: caller, process: process,
                createdAt: now().timeIntervalSince1970)
        } catch {
            // A database out of reach passes as it is: the API answers 503 and Retry-After.
            if error is StorageUnavailableError { throw error }
            throw FeatureError(.failed, "could not record the command's idempotency key: \(error)")
        }
    }

    /// Keeps the answer of a claimed key, so resends replay it.
    public func finish(_ ticket: CommandTicket, with receipt: CommandReceipt) async throws {
        let body = receipt.body.count <= Self.maxStoredBodySize ? Data(receipt.body) : Data()
        do {
            try await records.finish(caller: ticket.caller, key: ticket.key, receipt: receipt, body: body)
        } catch {
            // A database out of reach passes as it is: the API answers 503 and Retry-After.
            if error is StorageUnavailableError { throw error }
            throw FeatureError(.failed, "could not record the command's answer: \(error)")
        }
    }

    /// Forgets a claimed key whose request failed without effect (a server error), so a resend
    /// may try again.
    public func abandon(_ ticket: CommandTicket) async {
        do {
            try await records.abandon(caller: ticket.caller, key: ticket.key)
        } catch {
            logger.warning("could not forget an abandoned idempotency key", metadata: ["error": "\(error)"])
        }
    }

    /// Drops receipts older than ``retention`` and the oldest past ``maxReceipts``; returns how
    /// many went.
    @discardableResult
    public func prune() async throws -> Int {
        let cutoff = now().timeIntervalSince1970 - Self.retention
        do {
            return try await records.prune(before: cutoff, keep: Self.maxReceipts)
        } catch {
            // A database out of reach passes as it is: the API answers 503 and Retry-After.
            if error is StorageUnavailableError { throw error }
            throw FeatureError(.failed, "could not prune the command journal: \(error)")
        }
    }

    /// How many receipts (pending or done) are kept.
    public func count() async throws -> Int {
        try await records.count()
    }
}
