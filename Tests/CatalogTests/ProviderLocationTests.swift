import AsyncHTTPClient
import Foundation
import Testing
import TunerTesting

@testable import Catalog

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Only the user names local files, and local reads are bounded: the importer's side, in process.
@Suite("Provider locations and bounded local reads")
struct ProviderLocationTests {
    @Test("Devices, FIFOs, folders and links to them are refused by type; regular files are read")
    func specialFilesAreRefusedByType() throws {
        let catalog = try TemporaryCatalog()
        let folder = catalog.directory.path
        let fifo = folder + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: fifo)
        try FileManager.default.createSymbolicLink(atPath: folder + "/zero", withDestinationPath: "/dev/zero")
        let regular = try catalog.write("#EXTM3U\n", to: "fine.m3u")
        for (path, type) in [
            ("/dev/zero", "character device"), (fifo, "FIFO"), (folder + "/link", "FIFO"),
            (folder + "/zero", "character device"), (folder, "folder"),
        ] {
            #expect {
                try LocalSourceFile.check(path)
            } throws: { error in
                "\(error)".contains(type)
            }
        }
        try LocalSourceFile.check(regular)
        #expect(!(try GzipFile.isGzip(path: regular)))
        #expect(throws: CatalogError.self) { try GzipFile.isGzip(path: "/dev/zero") }
    }

    @Test("Reading stops at the byte limit, with the error that names the setting")
    func readerStopsAtTheLimit() throws {
        let catalog = try TemporaryCatalog()
        let path = try catalog.write(String(repeating: "x", count: 5000), to: "big.m3u")
        var seen: Int64 = 0
        let reader = ChunkedFileReader(chunkSize: 1000, limit: 2500)
        #expect {
            try reader.read(path: path) { seen += Int64($0.count) }
        } throws: { error in
            "\(error)".contains("larger than --import-max-size (2500 bytes)")
        }
        #expect(seen <= 2500, "nothing past the limit is parsed")
        #expect(try ChunkedFileReader(chunkSize: 1000, limit: 5000).read(path: path) { _ in } == 5000)
        // Past the deadline, reading stops at the next chunk.
        #expect {
            try ChunkedFileReader(chunkSize: 1000, deadline: .now - .seconds(1)).read(path: path) { _ in }
        } throws: { error in
            "\(error)".contains("took longer than --import-timeout")
        }
    }

    @Test(
        "A playlist naming local guides, logos and catch-up templates keeps none and says so",
        arguments: StorageEngine.underTest)
    func playlistLocationsMustBeHTTP(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(
                """
                #EXTM3U x-tvg-url="/etc/hostname,file:///etc/hostname,http://guide.example/epg.xml"
                #EXTINF:-1 tvg-logo="/dev/zero" catchup="flussonic" catchup-source="file:///etc/passwd",One
                http://example.com/1
                #EXTINF:-1 tvg-logo="http://logo.example/2.png" catchup="append" catchup-source="?utc={utc}",Two
                http://example.com/2
                """, to: "hostile.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { importer in
                let counts = try await importer.refresh(sourceID: source.id)
                #expect(counts.live == 2)
            }
            let stored = try #require(try await catalog.store.source(id: source.id))
            #expect(stored.epgURLs == ["http://guide.example/epg.xml"])
            #expect(stored.status == .ok)
            let error = stored.lastError ?? ""
            for refused in [
                "refused 4 locations", "guide '/etc/hostname'", "guide 'file:///etc/hostname'", "logo '/dev/zero'",
                "catch-up template 'file:///etc/passwd'",
            ] {
                #expect(error.contains(refused), "\(error)")
            }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items.sorted { $0.name < $1.name }
            #expect(items.map(\.logo) == [nil, "http://logo.example/2.png"])
            #expect(items.map { $0.catchup?.source } == [nil, "?utc={utc}"])
        }
    }

    @Test(
        "A local playlist past the size limit fails clearly and the catalog keeps what it had",
        arguments: StorageEngine.underTest)
    func localPlaylistPastTheLimit(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let line = "#EXTINF:-1,Channel\nhttp://example.com/1\n"
            let path = try catalog.write("#EXTM3U\n" + line, to: "list.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let configuration = CatalogImporter.Configuration(
                maxDownloadBytes: 4096, temporaryDirectory: catalog.directory)
            let importer = CatalogImporter(
                store: catalog.store, httpClient: client, configuration: configuration, logger: testLogger)
            do {
                try await importer.refresh(sourceID: source.id)
                _ = try catalog.write("#EXTM3U\n" + String(repeating: line, count: 1000), to: "list.m3u")
                await #expect {
                    try await importer.refresh(sourceID: source.id)
                } throws: { error in
                    "\(error)".contains("is larger than --import-max-size (4 KiB); raise it if it is genuine")
                }
                #expect(try await catalog.store.items(CatalogItemQuery(kind: .live)).total == 1)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    @Test("A refresh cancelled mid-download leaves no download behind", arguments: StorageEngine.underTest)
    func cancelledDownloadIsRemoved(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let served = catalog.directory.appendingPathComponent("served")
            let downloads = catalog.directory.appendingPathComponent("imports")
            for folder in [served, downloads] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            let entries = (0..<2000).map { "#EXTINF:-1,Channel \($0)\nhttp://example.com/\($0)\n" }.joined()
            try Data(("#EXTM3U\n" + entries).utf8).write(to: served.appendingPathComponent("list.m3u"))
            let origin = try await TestOrigin.start()
            origin.serveDirectory(served.path)
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: "\(origin.baseURL)/static/list.m3u?drip=500,100"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let importer = CatalogImporter(
                store: catalog.store, httpClient: client,
                configuration: CatalogImporter.Configuration(temporaryDirectory: downloads), logger: testLogger)
            let refresh = Task { try await importer.refresh(sourceID: source.id) }
            var waiting: [String] = []
            for _ in 0..<250 where waiting.isEmpty {
                try await Task.sleep(for: .milliseconds(20))
                waiting = try FileManager.default.contentsOfDirectory(atPath: downloads.path)
            }
            #expect(waiting.count == 1, "the download is under way: \(waiting)")
            refresh.cancel()
            _ = try? await refresh.value
            #expect(try FileManager.default.contentsOfDirectory(atPath: downloads.path).isEmpty)
            try await client.shutdown()
            try await origin.shutdown()
        }
    }
}
