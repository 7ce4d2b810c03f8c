import Catalog
import Foundation
import Logging
import PostgresNIO
import Testing
import TunerStorage
import TunerTesting

@testable import Outputs

/// What ``OutputStore`` keeps besides lineups — profiles, numbers, logins — read back the same
/// from each state engine: the conformance suite of ``OutputRecords``.
@Suite struct OutputRecordsTests {
    static func withStore(_ engine: StorageEngine, _ body: (OutputStore) async throws -> Void) async throws {
        try await TestPostgres.withStateDatabase(engine, schemas: [CatalogSchema.self, OutputSchema.self]) {
            database in
            let logger = Logger(label: "test")
            try await body(
                OutputStore(database: database, catalog: database.catalogStore(logger: logger), logger: logger))
        }
    }

    static func profile(_ id: String, createdAt: Double) -> OutputProfile {
        OutputProfile(
            id: id, name: "Name of \(id)", deviceID: HDHomeRunDeviceID.random(), accessKey: OutputStore.randomKey(),
            createdAt: Date(timeIntervalSince1970: createdAt))
    }

    @Test(arguments: StorageEngine.underTest)
    func profilesReadBackAsStoredInCreationOrder(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            var first = Self.profile("b-2", createdAt: 1_700_000_000.25)
            first.selection = OutputSelection(
                kinds: ["live", "movie"], sourceIDs: [3], groups: ["News", "Sport é"], search: "bbc")
            first.numbering = OutputNumbering(start: 100, keepPlaylistNumbers: true)
            first.renames = ["x": "Ünïcode \"name\""]
            first.streamLimit = 500
            try await store.insert(first)
            try await store.insert(Self.profile("a-1", createdAt: 1_700_000_000.25))
            try await store.insert(Self.profile("0", createdAt: 1_600_000_000))

            // Oldest first; a tie goes by id, byte by byte.
            #expect(try await store.profiles().map(\.id) == ["0", "a-1", "b-2"])
            var expected = first
            expected.streamLimit = 64
            #expect(try await store.profile(id: "b-2") == expected, "every field, the limit clamped to 64")
            #expect(try await store.profile(id: "nope") == nil)

            let duplicate = await #expect(throws: OutputError.self) {
                try await store.insert(Self.profile("a-1", createdAt: 1))
            }
            #expect(duplicate?.kind == .conflict)
            await #expect(throws: OutputError.self) { try await store.insert(Self.profile("-x", createdAt: 1)) }
            var nul = Self.profile("nul", createdAt: 1)
            nul.name = "a\u{0}b"
            let refused = await #expect(throws: OutputError.self) { try await store.insert(nul) }
            #expect(refused?.kind == .invalid, "neither engine stores a NUL")
            // Text that PostgreSQL's JSON keeps escaped reads back whole.
            nul.name = "Nul"
            nul.renames = ["c1": "a\u{0}b\u{1F}\u{2028}"]
            nul.selection = OutputSelection(groups: ["g\u{0}"], search: "\u{0}")
            try await store.insert(nul)
            #expect(try await store.profile(id: "nul") == nul)
            try await store.removeProfile(id: "nul")

            var changed = expected
            changed.name = "Renamed"
            changed.streamLimit = 0
            changed.deviceID = 1
            changed.accessKey = "other"
            try await store.update(changed)
            let read = try #require(try await store.profile(id: "b-2"))
            #expect(read.name == "Renamed" && read.streamLimit == 1)
            #expect(read.deviceID == first.deviceID && read.accessKey == first.accessKey, "id, device and key stay")

            try await store.setStreamProfile("remux", ofProfile: "b-2")
            #expect(try await store.profile(id: "b-2")?.streamProfile == "remux")
            await #expect(throws: OutputError.self) { try await store.setStreamProfile("fast", ofProfile: "b-2") }

            let missing = await #expect(throws: OutputError.self) {
                try await store.update(Self.profile("nope", createdAt: 1))
            }
            #expect(missing?.kind == .notFound)
            try await store.removeProfile(id: "a-1")
            let gone = await #expect(throws: OutputError.self) { try await store.removeProfile(id: "a-1") }
            #expect(gone?.kind == .notFound)
            #expect(try await store.profiles().map(\.id) == ["0", "b-2"])
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func theDefaultProfileIsMadeOnce(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            let made = try await store.ensureDefaultProfile()
            let again = try await store.ensureDefaultProfile()
            #expect(made == again && made.id == OutputProfile.defaultID)
            #expect(try await store.profiles().count == 1)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func numbersAlreadyTakenKeepTheirChannelAndGoWithTheirProfile(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insert(Self.profile("p", createdAt: 1))
            try await store.insert(Self.profile("q", createdAt: 2))
            let a = OutputChannelKey(kind: "live", identity: "a")
            let b = OutputChannelKey(kind: "live", identity: "b")
            let c = OutputChannelKey(kind: "movie", identity: "a")
            try await store.records.addNumbers([a: 1, c: 2], profileID: "p")
            // What another node recorded meanwhile: a is numbered already, 2 is c's.
            try await store.records.addNumbers([a: 5, b: 2], profileID: "p")
            try await store.records.addNumbers([b: 2], profileID: "q")
            try await store.records.addNumbers([:], profileID: "q")
            #expect(try await store.numbers(profileID: "p") == [a: 1, c: 2])
            #expect(try await store.numbers(profileID: "q") == [b: 2])
            try await store.removeProfile(id: "p")
            #expect(try await store.numbers(profileID: "p").isEmpty)
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func loginsAuthenticateChangeAndGo(engine: StorageEngine) async throws {
        try await Self.withStore(engine) { store in
            try await store.insert(Self.profile("p", createdAt: 1))
            try await store.insert(Self.profile("q", createdAt: 2))
            var user = OutputUser(
                username: "tv", profileIDs: ["q", "p"], maxConnections: 99,
                createdAt: Date(timeIntervalSince1970: 1_700_000_000.5))
            user.expiresAt = 1_900_000_000
            try await store.insertUser(user, password: "first-password")
            try await store.insertUser(OutputUser(username: "Zed", profileIDs: ["p"]), password: "zed-password")
            try await store.insertUser(OutputUser(username: "alice", profileIDs: ["p"]), password: "alice-password")

            #expect(try await store.users().map(\.username) == ["Zed", "alice", "tv"], "byte order, as SQLite's")
            var expected = user
            expected.maxConnections = 64
            #expect(try await store.user(named: "tv") == expected)
            #expect(try await store.authenticate("tv", password: "first-password", client: "c") == expected)
            #expect(try await store.authenticate("tv", password: "wrong-password", client: "c") == nil)
            #expect(try await store.authenticate("nobody", password: "first-password", client: "c") == nil)

            let taken = await #expect(throws: OutputError.self) {
                try await store.insertUser(OutputUser(username: "tv", profileIDs: ["p"]), password: "other-password")
            }
            #expect(taken?.kind == .conflict)
            await #expect(throws: OutputError.self) {
                try await store.insertUser(OutputUser(username: "x", profileIDs: ["none"]), password: "a-password")
            }

            user.profileIDs = ["p"]
            user.maxConnections = 3
            user.expiresAt = nil
            try await store.updateUser(user, password: "second-password")
            #expect(try await store.authenticate("tv", password: "first-password", client: "c") == nil)
            #expect(try await store.authenticate("tv", password: "second-password", client: "c") == user)
            user.maxConnections = 4
            try await store.updateUser(user, password: nil)
            #expect(try await store.authenticate("tv", password: "second-password", client: "c") == user)
            try await store.setStreamProfile("transcode", ofUser: "tv")
            #expect(try await store.user(named: "tv")?.streamProfile == "transcode")
            // Disabled and enabled again: kept by both engines, and a change of the rest keeps it.
            try await store.setDisabled(true, ofUser: "tv")
            #expect(try await store.user(named: "tv")?.isDisabled == true)
            #expect(try await store.users().filter(\.isDisabled).map(\.username) == ["tv"])
            try await store.updateUser(user, password: nil)
            #expect(try await store.user(named: "tv")?.isDisabled == true)
            try await store.setDisabled(false, ofUser: "tv")
            #expect(try await store.user(named: "tv")?.isDisabled == false)

            let missing = await #expect(throws: OutputError.self) {
                try await store.updateUser(OutputUser(username: "nobody", profileIDs: ["p"]), password: nil)
            }
            #expect(missing?.kind == .notFound)
            try await store.removeUser(named: "tv")
            #expect(try await store.authenticate("tv", password: "second-password", client: "c") == nil)
            let gone = await #expect(throws: OutputError.self) { try await store.removeUser(named: "tv") }
            #expect(gone?.kind == .notFound)
            #expect(try await store.users().map(\.username) == ["Zed", "alice"])
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func twoNodesAgreeOnTheDefaultProfileAndOnNumbers(engine: StorageEngine) async throws {
        try await TestPostgres.withStateDatabase(engine, schemas: [CatalogSchema.self, OutputSchema.self]) {
            database in
            try await Self.withSecondNode(on: database) { other in
                let logger = Logger(label: "test")
                let catalog = database.catalogStore(logger: logger)
                let one = OutputStore(database: database, catalog: catalog, logger: logger)
                let two = OutputStore(database: other, catalog: other.catalogStore(logger: logger), logger: logger)
                // Both make it at once: one inserts, the other finds it made.
                async let first = one.ensureDefaultProfile()
                async let second = two.ensureDefaultProfile()
                let (made, found) = try await (first, second)
                #expect(made == found)
                #expect(try await one.profiles().count == 1)

                let source = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/a.m3u"))
                _ = try await catalog.replaceItems(ofSource: source.id) { sink in
                    for index in 1...40 {
                        try sink.add(
                            CatalogItemDraft(kind: .live, name: "Channel \(index)", url: "http://h/\(index).ts"))
                    }
                }
                async let recordOne: Void = one.recordNumbers(profileID: made.id)
                async let recordTwo: Void = two.recordNumbers(profileID: made.id)
                _ = try await (recordOne, recordTwo)
                let numbers = try await one.numbers(profileID: made.id)
                #expect(numbers.count == 40 && Set(numbers.values) == Set(1...40))
                #expect(try await two.numbers(profileID: made.id) == numbers)
                #expect(try await two.lineup(profileID: made.id).map(\.number) == Array(1...40))
            }
        }
    }

    /// A PostgreSQL database made with a language's collation (ICU `en`, where `alice` comes
    /// before `Zed`), as production servers often are: lists still come in SQLite's byte order.
    @Test(.enabled(if: TestPostgres.isAvailable))
    func listsKeepSQLitesByteOrderUnderALanguageCollation() async throws {
        let server = try #require(TestPostgres.serverAddress)
        let logger = Logger(label: "test")
        let name = "tuner_test_icu_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let admin = try await TunerPostgres.open(
            address: server, schemas: [], options: TestPostgres.patientOptions, logger: logger)
        do {
            try await admin.read { connection in
                _ = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE DATABASE \(name) TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en'
                                LOCALE 'C.UTF-8'
                            """), logger: logger)
            }
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
        let address = server.with(database: String(name))
        do {
            let database = try await TunerPostgres.open(
                address: address, schemas: [OutputSchema.self], options: TestPostgres.patientOptions, logger: logger)
            do {
                let state = StateDatabase.postgres(database)
                let store = OutputStore(database: state, catalog: state.catalogStore(logger: logger), logger: logger)
                try await store.insert(Self.profile("p", createdAt: 1))
                for username in ["alice", "Zed", "bob"] {
                    try await store.insertUser(
                        OutputUser(username: username, profileIDs: ["p"]), password: "a-password")
                }
                #expect(try await store.users().map(\.username) == ["Zed", "alice", "bob"])
                await database.close()
            } catch {
                await database.close()
                throw error
            }
            await TestPostgres.drop(address)
        } catch {
            await TestPostgres.drop(address)
            throw error
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
                address: postgres.address, schemas: [OutputSchema.self], options: TestPostgres.patientOptions,
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
