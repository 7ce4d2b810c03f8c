import CompressNIO
import Foundation
import MediaFormats
import NIOCore
import Testing
import TunerTesting

@testable import Catalog

/// The real playlists of ../shared/data imported end to end.
@Suite("Conformance: real playlists")
struct CatalogConformanceTests {
    @Test("Every iptv-org playlist imports every entry it has", arguments: StorageEngine.underTest)
    func iptvOrgStreams(engine: StorageEngine) async throws {
        let directory = Fixtures.sharedData.appendingPathComponent("iptv-org-iptv/streams")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".m3u") }
            .sorted()
        try #require(files.count > 300)
        try await TemporaryCatalog.with(engine) { catalog in
            var expectedTotal = 0
            try await withImporter(catalog) { importer in
                for file in files {
                    let path = directory.appendingPathComponent(file).path
                    let entries = M3UParser.parse(FileManager.default.contents(atPath: path) ?? Data()).entries.count
                    let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
                    if entries == 0 {
                        await #expect(throws: CatalogError.emptyImport) {
                            try await importer.refresh(sourceID: source.id)
                        }
                        continue
                    }
                    let counts = try await importer.refresh(sourceID: source.id)
                    #expect(counts.live + counts.movies + counts.episodes == entries, "\(file)")
                    expectedTotal += counts.live + counts.movies + counts.series
                }
            }
            let all = try await catalog.store.items(CatalogItemQuery(limit: 1))
            #expect(all.total == expectedTotal)
            #expect(expectedTotal > 10_000)
            let search = try await catalog.store.items(CatalogItemQuery(search: "bbc news"))
            #expect(search.total > 0)
            #expect(
                search.items.allSatisfy {
                    $0.name.lowercased().contains("bbc") || ($0.group ?? "").lowercased().contains("bbc")
                })
        }
    }

    @Test(
        "The 194,918-entry provider playlist imports completely, and a refresh keeps every id",
        arguments: StorageEngine.underTest)
    func bigProviderPlaylist(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try Self.inflateBigPlaylist(into: catalog.directory)
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { importer in
                let counts = try await importer.refresh(sourceID: source.id)
                #expect(counts.live == 12_759)
                #expect(counts.movies == 68_152)
                #expect(counts.episodes == 114_007)
                #expect(counts.series > 0)
                let before = try await catalog.store.items(CatalogItemQuery(kind: .movie, offset: 40_000, limit: 20))
                _ = try await importer.refresh(sourceID: source.id)
                let after = try await catalog.store.items(CatalogItemQuery(kind: .movie, offset: 40_000, limit: 20))
                #expect(after == before)
            }
            let search = try await catalog.store.items(CatalogItemQuery(kind: .series, search: "american god"))
            #expect(search.items.first?.name.hasPrefix("American Gods") == true)
        }
    }

    /// tv_channels_private.m3u.zlib is raw DEFLATE; inflated with the same zlib the catalog uses for gzip.
    static func inflateBigPlaylist(into directory: URL) throws -> String {
        let compressed = try Data(
            contentsOf: Fixtures.sharedData.appendingPathComponent(
                "M3U8Decoder/Tests/M3U8DecoderTests/m3u8/tv_channels_private.m3u.zlib"))
        var input = ByteBuffer(bytes: compressed)
        var output = ByteBufferAllocator().buffer(capacity: 21_335_440 + 1024)
        try input.decompress(to: &output, with: .deflate())
        let path = directory.appendingPathComponent("tv_channels_private.m3u").path
        try Data(output.readableBytesView).write(to: URL(fileURLWithPath: path))
        return path
    }
}
