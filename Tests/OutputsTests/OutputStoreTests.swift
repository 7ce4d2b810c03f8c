import Catalog
import Foundation
import Logging
import MediaFormats
import Testing
import TunerStorage
import TunerTesting

@testable import Outputs

/// Profiles, lineups and logins with a real catalog, on each state engine (SQLite, and
/// PostgreSQL when the tests have a server): the same assertions on both.
@Suite struct OutputStoreTests {
    struct Harness {
        let catalog: any CatalogStore
        let store: OutputStore
        let sourceID: Int64

        /// Runs `body` with a harness on a new database of `engine`.
        static func with(_ engine: StorageEngine, _ body: (Harness) async throws -> Void) async throws {
            try await TestPostgres.withStateDatabase(engine, schemas: [CatalogSchema.self, OutputSchema.self]) {
                database in
                try await body(try await Harness(database: database))
            }
        }

        init(database: StateDatabase) async throws {
            catalog = database.catalogStore(logger: Logger(label: "test"))
            store = OutputStore(database: database, catalog: catalog, logger: Logger(label: "test"))
            sourceID = try await catalog.addSource(CatalogSourceDraft(kind: .m3u, location: "http://h/list.m3u")).id
        }

        func importChannels(_ names: [String], group: String = "News") async throws {
            _ = try await catalog.replaceItems(ofSource: sourceID) { sink in
                for name in names {
                    try sink.add(
                        CatalogItemDraft(
                            kind: .live, name: name, group: group, url: "http://viewer:hunter2@h/\(name).ts"))
                }
            }
        }
    }

    @Test(arguments: StorageEngine.underTest)
    func numbersSurviveARefreshThatReordersAndDropsChannels(engine: StorageEngine) async throws {
        try await Harness.with(engine) { harness in try await numbersSurviveARefresh(harness) }
    }

    func numbersSurviveARefresh(_ harness: Harness) async throws {
        try await harness.importChannels(["One", "Two", "Three"])
        let profile = try await harness.store.ensureDefaultProfile()
        #expect(HDHomeRunDeviceID.isValid(profile.deviceID) && profile.accessKey.count == 24)
        try await harness.store.recordNumbers(profileID: profile.id)
        let before = try await harness.store.lineup(profileID: profile.id)
        #expect(before.map(\.name) == ["One", "Two", "Three"] && before.map(\.number) == [1, 2, 3])

        try await harness.importChannels(["Zero", "Three", "One"])
        let after = try await harness.store.lineup(profileID: profile.id)
        #expect(after.map(\.name) == ["One", "Three", "Zero"])
        #expect(after.map(\.number) == [1, 3, 4], "Two's 2 stays reserved; Zero gets the next free number")
        // Reading did not record Zero's number; recording gives the same one.
        try await harness.store.recordNumbers(profileID: profile.id)
        #expect(try await harness.store.lineup(profileID: profile.id).map(\.number) == [1, 3, 4])
        // Two comes back with its number.
        try await harness.importChannels(["Zero", "Three", "One", "Two"])
        #expect(try await harness.store.lineup(profileID: profile.id).map(\.number) == [1, 2, 3, 4])
    }

    @Test(arguments: StorageEngine.underTest)
    func selectionsNarrowAndIncludeAndExcludeWin(engine: StorageEngine) async throws {
        try await Harness.with(engine) { harness in try await selectionsNarrow(harness) }
    }

    func selectionsNarrow(_ harness: Harness) async throws {
        try await harness.importChannels(["BBC News", "CNN"], group: "News")
        let all = try await harness.catalog.items(CatalogItemQuery(kind: .live, limit: 10)).items
        let cnn = try #require(all.first { $0.name == "CNN" })
        var selection = OutputSelection(search: "bbc")
        selection.include = [cnn.identity]
        try await harness.store.insert(
            OutputProfile(
                id: "picked", name: "Picked", selection: selection, deviceID: HDHomeRunDeviceID.random(),
                accessKey: OutputStore.randomKey()))
        #expect(try await harness.store.lineup(profileID: "picked").map(\.name) == ["BBC News", "CNN"])
        selection.exclude = [cnn.identity]
        var changed = try #require(try await harness.store.profile(id: "picked"))
        changed.selection = selection
        try await harness.store.update(changed)
        #expect(try await harness.store.lineup(profileID: "picked").map(\.name) == ["BBC News"])

        await #expect(throws: OutputError.self) {
            try await harness.store.insert(
                OutputProfile(id: "Bad/Id", name: "x", deviceID: 1, accessKey: "k"))
        }
        let duplicate = await #expect(throws: OutputError.self) {
            try await harness.store.insert(
                OutputProfile(id: "picked", name: "x", deviceID: HDHomeRunDeviceID.random(), accessKey: "k"))
        }
        #expect(duplicate?.kind == .conflict)
        await #expect(throws: OutputError.self) { try await harness.store.lineup(profileID: "nope") }
    }

    @Test(arguments: StorageEngine.underTest)
    func theM3UOutputReadsBackWithTunerURLsAndNoProviderSecret(engine: StorageEngine) async throws {
        try await Harness.with(engine) { harness in try await theM3UOutputReadsBack(harness) }
    }

    func theM3UOutputReadsBack(_ harness: Harness) async throws {
        try await harness.importChannels(["News & \"Weather\"", "Sport"])
        let profile = try await harness.store.ensureDefaultProfile()
        let channels = try await harness.store.lineup(profileID: profile.id)
        let links = OutputLinks(base: "http://192.168.1.10:5004/", profileID: profile.id, key: "k1")
        let text = M3UOutput(links: links, logo: { _ in nil }).string(for: channels)
        #expect(!text.contains("hunter2"))
        let playlist = M3UParser.parse(Array(text.utf8))
        #expect(
            playlist.entries.map(\.url) == [
                "http://192.168.1.10:5004/play/default/1?key=k1", "http://192.168.1.10:5004/play/default/2?key=k1",
            ])
        #expect(playlist.entries.map(\.tvgID) == ["1.tuner", "2.tuner"])
        #expect(
            playlist.entries.first?.title == "News & 'Weather'" || playlist.entries.first?.title == "News & \"Weather\""
        )
        #expect(playlist.header.tvgURLs == ["http://192.168.1.10:5004/output/default.xml?key=k1"])
    }
}
