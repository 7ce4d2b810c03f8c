import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Stream checks")
struct StreamCheckTests {
    @Test(
        "A good stream, a 404, an unreachable port and HLS playlists are told apart, stored and listed",
        arguments: StorageEngine.underTest)
    func checksAgainstOrigin(engine: StorageEngine) async throws {
        let origin = try await TestOrigin.start()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent("stream-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        // A master leading to a media playlist whose first segment exists, and one whose first segment is gone.
        try Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nmedia.m3u8\n".utf8).write(
            to: served.appendingPathComponent("master.m3u8"))
        try Data(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            \(origin.baseURL)/files/seg0.ts?size=2000
            #EXTINF:6,
            \(origin.baseURL)/files/seg1.ts?size=2000
            #EXT-X-ENDLIST
            """.utf8
        ).write(to: served.appendingPathComponent("media.m3u8"))
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n/files/gone.ts?status=404\n#EXT-X-ENDLIST\n".utf8)
            .write(to: served.appendingPathComponent("broken.m3u8"))
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-ENDLIST\n".utf8).write(
            to: served.appendingPathComponent("empty.m3u8"))
        origin.serveDirectory(served.path)
        let refusing = try RefusingPort()

        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(
                """
                #EXTM3U
                #EXTINF:-1,Good
                \(origin.baseURL)/files/good.ts?size=5000
                #EXTINF:-1,Missing
                \(origin.baseURL)/files/missing.ts?status=404
                #EXTINF:-1,Unreachable
                http://127.0.0.1:\(refusing.port)/live.ts
                #EXTINF:-1,Master
                \(origin.baseURL)/static/master.m3u8
                #EXTINF:-1,Broken HLS
                \(origin.baseURL)/static/broken.m3u8
                #EXTINF:-1,Empty HLS
                \(origin.baseURL)/static/empty.m3u8
                """, to: "check.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            do {
                try await withImporter(catalog) { importer in _ = try await importer.refresh(sourceID: source.id) }
                let checker = StreamChecker(
                    store: catalog.store, configuration: .init(concurrency: 2, timeout: .seconds(5)), logger: testLogger
                )
                let checks = try await checker.check(sourceID: source.id)
                let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
                #expect(checks.map(\.itemID) == items.map(\.id))
                let byName = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.streamCheck) })
                #expect(byName["Good"]??.online == true)
                #expect(byName["Missing"]??.online == false)
                #expect(byName["Missing"]??.reason == "HTTP 404")
                #expect(byName["Unreachable"]??.online == false)
                #expect(byName["Unreachable"]??.reason.hasPrefix("unreachable") == true)
                #expect(byName["Master"]??.online == true)
                #expect(byName["Master"]??.reason.contains("2 segments") == true)
                #expect(byName["Broken HLS"]??.online == false)
                #expect(byName["Broken HLS"]??.reason == "first segment: HTTP 404")
                #expect(byName["Empty HLS"]??.online == false)
                #expect(byName["Empty HLS"]??.reason == "playlist without segments")
                // The probe of the good stream was a HEAD: no body was sent for a check.
                #expect(origin.requests(path: "/files/good.ts") == 1)
                #expect(origin.bodyBytesSent(path: "/files/good.ts") == 0)

                // A refresh keeps the checks of channels that survive it.
                try await withImporter(catalog) { importer in _ = try await importer.refresh(sourceID: source.id) }
                let good = try #require(
                    try await catalog.store.items(CatalogItemQuery(kind: .live, search: "good")).items.first)
                #expect(good.streamCheck?.online == true)

                await #expect(throws: CatalogError.itemNotFound(999_999)) { try await checker.check(ids: [999_999]) }
            } catch {
                try await origin.shutdown()
                throw error
            }
            try await origin.shutdown()
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("A check that is redirected to another origin sends it no credentials, and refuses non-http hops")
    func redirectsKeepCredentialsHome() async throws {
        let first = try await TestOrigin.start()
        let second = try await TestOrigin.start()
        let catalog = try TemporaryCatalog()
        let checker = StreamChecker(
            store: catalog.store, configuration: .init(concurrency: 1, timeout: .seconds(5)), logger: testLogger)
        let target = "\(second.baseURL)/files/elsewhere.ts?size=2000"
        let url =
            "\(first.baseURL)/redirect-to?url=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        let headers = [
            CatalogHeader(name: "Authorization", value: "Bearer SECRET"),
            CatalogHeader(name: "Cookie", value: "s=SECRET"),
            CatalogHeader(name: "Referer", value: "http://provider.example/"),
        ]
        let (online, reason) = await checker.probe(url, headers: headers)
        #expect(online, "\(reason)")
        let sent = try #require(second.lastRequestHeaders(path: "/files/elsewhere.ts"))
        #expect(!sent.contains { ["authorization", "cookie"].contains($0.name.lowercased()) }, "\(sent)")
        #expect(sent.contains { $0.name.lowercased() == "referer" })

        let toFile = "\(first.baseURL)/redirect-to?url=file%3A%2F%2F%2Fetc%2Fpasswd"
        let refused = await checker.probe(toFile)
        #expect(!refused.online)
        try await first.shutdown()
        try await second.shutdown()
    }
}
