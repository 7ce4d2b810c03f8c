import Catalog
import Foundation
import Logging
import Outputs
import Testing
import Transfers
import TunerApp
import TunerStorage

/// Every store runs over `any DatabaseWriter`: the same stores, schemas and migrations on a
/// database in memory, with no file anywhere.
@Suite struct InMemoryStoresTests {
    let logger = Logger(label: "test")

    @Test("Catalog, outputs, transfers, access and the journal read back what they wrote, in memory")
    func everyStoreWorksInMemory() async throws {
        let database = try DataFolder.inMemoryDatabase()
        #expect(database.path == ":memory:")

        // Catalog: a source, its items through the import sink, and a full-text search.
        let catalog = SQLiteCatalogStore(database: database, logger: logger)
        let source = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/a.m3u"))
        #expect(try await catalog.sources().map(\.id) == [source.id])

        // Outputs: the default profile over the catalog, and a login that authenticates.
        let outputs = OutputStore(database: database, catalog: catalog, logger: logger)
        let profile = try await outputs.ensureDefaultProfile()
        #expect(try await outputs.profiles().map(\.id) == [profile.id])
        try await outputs.insertUser(OutputUser(username: "tv", profileIDs: [profile.id]), password: "a-password")
        #expect(try await outputs.authenticate("tv", password: "a-password", client: "test")?.username == "tv")
        #expect(try await outputs.authenticate("tv", password: "wrong", client: "test") == nil)

        // Transfers: a task in and out.
        let transfers = SQLiteTransferStore(database: database)
        _ = try await transfers.insert([
            TransferTask(kind: .downloadFile, sourceURL: "http://h/x", destinationName: "x")
        ])
        #expect(try await transfers.loadAll().map(\.destinationName) == ["x"])

        // Access: a key made is a key that signs in.
        let access = AccessControl(database: database, ownerToken: nil, logger: logger)
        let key = try await access.addKey(name: "phone", scope: .read)
        #expect(try await access.principal(bearer: key.secret) != nil)
        #expect(try await access.keys().count == 1)

        // The idempotency journal: a first claim runs, a second one is in progress.
        let journal = CommandJournal(database: database, logger: logger)
        guard case .run = try await journal.claim(key: "k1", fingerprint: "f", caller: "c") else {
            Issue.record("a first claim must run")
            return
        }
        #expect(try await journal.claim(key: "k1", fingerprint: "f", caller: "c") == .inProgress)
    }

    @Test("Two in-memory databases share nothing")
    func inMemoryDatabasesAreSeparate() async throws {
        let first = SQLiteCatalogStore(database: try DataFolder.inMemoryDatabase(), logger: logger)
        let second = SQLiteCatalogStore(database: try DataFolder.inMemoryDatabase(), logger: logger)
        _ = try await first.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/a.m3u"))
        #expect(try await first.sources().count == 1)
        #expect(try await second.sources().isEmpty)
    }
}
