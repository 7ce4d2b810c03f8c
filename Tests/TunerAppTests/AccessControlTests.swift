import Foundation
import Logging
import Synchronization
import Testing
import TunerApp
import TunerStorage
import TunerTesting

/// API keys and browser sessions on each state engine (SQLite, and PostgreSQL when the tests have
/// a server): the same assertions on both, and a key removed through one ``AccessControl`` refused
/// at once by another on the same database (another node, or the CLI beside the server).
@Suite struct AccessControlTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let moment = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { moment.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { moment.withLock { $0 += seconds } }
    }

    static let ownerToken = "owner-token-0123456789abcdef"

    static func withAccess(
        _ engine: StorageEngine, _ body: (AccessControl, Clock, StateDatabase) async throws -> Void
    ) async throws {
        try await TestPostgres.withStateDatabase(engine, schemas: [AccessSchema.self]) { database in
            let clock = Clock()
            let access = AccessControl(
                database: database, ownerToken: ownerToken, logger: Logger(label: "test"), now: { clock.now })
            try await body(access, clock, database)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func keysAreFoundByTheirSecretAndListedWithoutIt(engine: StorageEngine) async throws {
        try await Self.withAccess(engine) { access, clock, _ in
            let made = try await access.addKey(name: "  living-room-tv ", scope: .play)
            let other = try await access.addKey(name: "phone", scope: .admin)
            #expect(made.secret.hasPrefix(AccessControl.keyPrefix) && made.secret != other.secret)
            #expect(made.key.name == "living-room-tv" && made.key.scope == .play && other.key.id > made.key.id)
            #expect(made.key.hint == String(made.secret.prefix(AccessControl.keyPrefix.count + 4)) + "…")

            #expect(
                try await access.principal(bearer: made.secret)
                    == AccessPrincipal(scope: .play, keyID: made.key.id, name: "living-room-tv"))
            #expect(try await access.principal(bearer: Self.ownerToken) == .owner)
            #expect(try await access.principal(bearer: made.secret + "x") == nil)
            #expect(try await access.principal(bearer: "tuner_unknown") == nil)

            // Listed oldest first, never with a secret; a use is noted at most once a minute.
            var keys = try await access.keys()
            #expect(keys.map(\.id) == [made.key.id, other.key.id])
            #expect(keys.first?.createdAt == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(
                keys.first?.lastUsedAt == Date(timeIntervalSince1970: 1_800_000_000) && keys.last?.lastUsedAt == nil)
            clock.advance(30)
            _ = try await access.principal(bearer: made.secret)
            #expect(try await access.keys().first?.lastUsedAt == Date(timeIntervalSince1970: 1_800_000_000))
            clock.advance(31)
            _ = try await access.principal(bearer: made.secret)
            #expect(try await access.keys().first?.lastUsedAt == Date(timeIntervalSince1970: 1_800_000_061))

            await #expect(throws: FeatureError.self) { try await access.addKey(name: " ", scope: .read) }
            await #expect(throws: FeatureError.self) { try await access.addKey(name: "tab\there", scope: .read) }
            try await access.removeKey(id: made.key.id)
            #expect(try await access.principal(bearer: made.secret) == nil)
            let missing = await #expect(throws: FeatureError.self) { try await access.removeKey(id: made.key.id) }
            #expect(missing?.kind == .notFound)
            keys = try await access.keys()
            #expect(keys.map(\.name) == ["phone"])
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func sessionsLastTheirLifetimeAndEndWithTheirKey(engine: StorageEngine) async throws {
        try await Self.withAccess(engine) { access, clock, _ in
            let key = try await access.addKey(name: "laptop", scope: .manage)
            let (cookie, principal) = try await access.signIn(secret: key.secret)
            #expect(principal == AccessPrincipal(scope: .manage, keyID: key.key.id, name: "laptop"))
            #expect(try await access.principal(session: cookie) == principal)
            let (ownerCookie, owner) = try await access.signIn(secret: Self.ownerToken)
            #expect(owner == .owner && ownerCookie != cookie)
            #expect(try await access.principal(session: ownerCookie) == .owner)
            #expect(try await access.principal(session: cookie + "x") == nil)
            let refused = await #expect(throws: FeatureError.self) { try await access.signIn(secret: "tuner_nope") }
            #expect(refused?.kind == .forbidden)

            await access.signOut(session: ownerCookie)
            #expect(try await access.principal(session: ownerCookie) == nil)
            await access.signOut(session: ownerCookie)

            // A session lives its lifetime and not a second more.
            clock.advance(AccessControl.sessionLifetime - 1)
            #expect(try await access.principal(session: cookie) == principal)
            clock.advance(1)
            #expect(try await access.principal(session: cookie) == nil)

            // Removing a key signs its browsers out; the owner's sessions stay.
            let (second, _) = try await access.signIn(secret: key.secret)
            let (ownerAgain, _) = try await access.signIn(secret: Self.ownerToken)
            try await access.removeKey(id: key.key.id)
            #expect(try await access.principal(session: second) == nil)
            #expect(try await access.principal(session: ownerAgain) == .owner)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func aKeyRemovedThroughOneAccessControlIsRefusedByAnotherAtOnce(engine: StorageEngine) async throws {
        try await Self.withAccess(engine) { first, clock, database in
            try await Self.withSecondNode(on: database) { secondDatabase in
                let second = AccessControl(
                    database: secondDatabase, ownerToken: nil, logger: Logger(label: "test"), now: { clock.now })
                let key = try await first.addKey(name: "shared", scope: .read)
                let (cookie, _) = try await first.signIn(secret: key.secret)
                #expect(try await second.principal(bearer: key.secret)?.keyID == key.key.id)
                #expect(try await second.principal(session: cookie)?.keyID == key.key.id)
                #expect(try await second.keys().map(\.id) == [key.key.id])

                try await second.removeKey(id: key.key.id)
                #expect(try await first.principal(bearer: key.secret) == nil)
                #expect(try await first.principal(session: cookie) == nil)
                #expect(try await first.keys().isEmpty)
            }
        }
    }

    @Test(.enabled(if: TestPostgres.isAvailable))
    func aDatabaseThatCannotAnswerIsNotAWrongKey() async throws {
        // A closed pool fails every request at once: no lease timeout is involved.
        try await TestPostgres.withDatabase(schemas: [AccessSchema.self]) { database in
            let access = AccessControl(
                database: .postgres(database), ownerToken: Self.ownerToken, logger: Logger(label: "test"))
            let key = try await access.addKey(name: "tv", scope: .read)
            let (cookie, _) = try await access.signIn(secret: key.secret)
            await database.close()
            // Unavailable (the API answers 503 with Retry-After), never "no such key".
            await #expect(throws: StorageUnavailableError.self) { try await access.principal(bearer: key.secret) }
            await #expect(throws: StorageUnavailableError.self) { try await access.principal(session: cookie) }
            await #expect(throws: StorageUnavailableError.self) { try await access.signIn(secret: key.secret) }
            await #expect(throws: StorageUnavailableError.self) { try await access.keys() }
            await #expect(throws: StorageUnavailableError.self) { try await access.removeKey(id: key.key.id) }
            #expect(
                try await access.principal(bearer: Self.ownerToken) == .owner, "the owner's token needs no database")
        }
    }

    /// The same database as another node sees it: on PostgreSQL a second pool of its own, on
    /// SQLite the same file (a second process would open it so).
    static func withSecondNode(
        on database: StateDatabase, _ body: (StateDatabase) async throws -> Void
    ) async throws {
        switch database {
        case .sqlite:
            try await body(database)
        case .postgres(let postgres):
            let other = try await TunerPostgres.open(
                address: postgres.address, schemas: [AccessSchema.self], options: TestPostgres.patientOptions,
                logger: Logger(label: "test"))
            do {
                try await body(.postgres(other))
                await other.close()
            } catch {
                await other.close()
                throw error
            }
        }
    }
}
