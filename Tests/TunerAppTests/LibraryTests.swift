import AsyncHTTPClient
import Catalog
import Foundation
import Logging
import Testing
import TunerApp

/// What a valid source is, decided once for the API and the CLI.
@Suite struct LibraryTests {
    struct Fixture {
        let folder: String
        let files: String
        let catalog: SQLiteCatalogStore
        let client: HTTPClient

        init() throws {
            folder = NSTemporaryDirectory() + "tuner-library-\(UUID().uuidString)"
            files = folder + "/files"
            try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
            catalog = try SQLiteCatalogStore(path: folder + "/tuner.sqlite", logger: Logger(label: "test"))
            client = HTTPClient(eventLoopGroupProvider: .singleton)
        }

        func library(filesRoot: Bool) throws -> Library {
            Library(
                catalog: catalog,
                importer: CatalogImporter(store: catalog, httpClient: client, logger: Logger(label: "test")),
                localFiles: filesRoot ? try LocalFileAccess(roots: [files]) : nil, defaultRefreshInterval: 3600)
        }

        func close() async throws {
            try await client.shutdown()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    func kind(of error: any Error) -> FeatureError.Kind? { (error as? FeatureError)?.kind }

    @Test func aPastedPanelURLBecomesAnAccountWhoseLocationHoldsNoPassword() async throws {
        let fixture = try Fixture()
        let library = try fixture.library(filesRoot: true)
        let added = try await library.addSource(
            .init(location: "http://panel.example:8080/player_api.php?username=alice&password=s3cret"))
        #expect(added.kind == .xtream)
        #expect(added.location == "http://panel.example:8080")
        #expect(added.xtream?.password == "", "answers never carry the password")
        let stored = try await fixture.catalog.source(id: added.id)
        #expect(stored?.xtream?.password == "s3cret", "kept for refreshes")
        try await fixture.close()
    }

    @Test func badSourcesAreRefusedWithTheirKind() async throws {
        let fixture = try Fixture()
        let api = try fixture.library(filesRoot: true)
        let inside = fixture.files + "/list.m3u"
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: inside))
        let outside = fixture.folder + "/secret.m3u"
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: outside))

        let cases: [(Library.NewSource, FeatureError.Kind)] = [
            (.init(location: "http://h/a.m3u", kind: "ftp"), .invalid),
            (.init(location: "http://h/a.m3u", refreshInterval: -1), .invalid),
            (.init(location: "http://h/a.m3u", refreshInterval: .infinity), .invalid),
            (.init(location: "http://h/a.m3u", refreshInterval: .nan), .invalid),
            (.init(location: "http://panel.example", kind: "xtream", username: "alice"), .invalid),
            (.init(location: "/etc/hosts", kind: "xtream", username: "a", password: "b"), .invalid),
            (.init(location: "relative/list.m3u"), .invalid),
            (.init(location: outside), .forbidden),
            (.init(location: "file://" + outside), .forbidden),
            (.init(location: "http://h/a.m3u", epgURLs: ["/etc/passwd"]), .forbidden),
            (.init(location: "gopher://h/a.m3u"), .invalid),
        ]
        for (new, expected) in cases {
            await #expect(throws: FeatureError.self, "\(new)") { _ = try await api.addSource(new) }
            do {
                _ = try api.draft(for: new)
            } catch {
                #expect(kind(of: error) == expected, "\(new): \(error)")
            }
        }
        #expect(try api.draft(for: .init(location: inside)).location.hasSuffix("/files/list.m3u"))
        #expect(try api.draft(for: .init(location: "http://h/a.m3u")).refreshInterval == 3600, "the default interval")
        #expect(try await fixture.catalog.sources().isEmpty, "nothing refused was stored")

        // The CLI trusts the user's own paths, relative ones included, but not missing files.
        let cli = try fixture.library(filesRoot: false)
        #expect(
            try cli.draft(for: .init(location: outside)).location
                == URL(fileURLWithPath: outside).standardizedFileURL.path)
        #expect(throws: FeatureError.self) { _ = try cli.draft(for: .init(location: fixture.folder + "/missing.m3u")) }
        try await fixture.close()
    }
}
