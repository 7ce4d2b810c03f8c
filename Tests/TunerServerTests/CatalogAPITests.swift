import Foundation
import Testing
import TunerTesting

@Suite("Catalog API")
struct CatalogAPITests {
    @Test("A playlist added and refreshed through the API plays through the proxy with its channel's headers")
    func addRefreshListPlay() async throws {
        // The channel is a 4 KB file, not a transport stream: on a loaded machine its end can
        // come after the live watchdog's 5 s and the session would read it again from another
        // try (a failover). This test is about the catalog and the channel's headers.
        let harness = try await ProxyHarness.start { $0.live.stallSeconds = 60 }
        let served = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 group-title="News",Channel One
            #EXTVLCOPT:http-user-agent=CatalogPlayer/2.0
            \(harness.origin.baseURL)/files/one.ts?size=4096
            #EXTINF:-1 group-title="Films",Some Movie
            \(harness.origin.baseURL)/files/movie/u/p/2.mp4?size=100
            """.utf8
        ).write(to: served.appendingPathComponent("list.m3u"))
        harness.origin.serveDirectory(served.path)

        let added = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json: #"{"location":"\#(harness.origin.baseURL)/static/list.m3u"}"#)
        #expect(added.status == 201)
        let id = try #require(try HTTP.json(added)["id"] as? Int)
        let refreshed = try await HTTP.fetch(harness.api + "/sources/\(id)/refresh", method: "POST")
        #expect(refreshed.status == 200)

        let listed = try await HTTP.fetch(harness.api + "/channels?search=chan&limit=10")
        #expect(listed.status == 200)
        let items = try #require(try HTTP.json(listed)["items"] as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["Channel One"])
        let channelID = try #require(items.first?["id"] as? Int)

        let play = try await HTTP.fetch(harness.api + "/channels/\(channelID)/play")
        #expect(play.status == 200)
        let proxyURL = try #require(try HTTP.json(play)["proxyURL"] as? String)
        let streamed = try await HTTP.fetch(proxyURL)
        #expect(streamed.status == 200)
        #expect(streamed.body.count == 4096)
        let upstreamHeaders = harness.origin.lastRequestHeaders(path: "/files/one.ts") ?? []
        #expect(upstreamHeaders.contains { $0.name.lowercased() == "user-agent" && $0.value == "CatalogPlayer/2.0" })

        let favourite = try await HTTP.fetch(harness.api + "/channels/\(channelID)/favourite", method: "PUT")
        #expect(favourite.status == 200)
        let favourites = try await HTTP.fetch(harness.api + "/channels?favourites=true")
        #expect((try HTTP.json(favourites)["total"] as? Int) == 1)

        #expect(try await HTTP.fetch(harness.api + "/channels/99999/play").status == 404)
        #expect(try await HTTP.fetch(harness.api + "/sources/99999/refresh", method: "POST").status == 404)
        try await harness.stop()
    }

    @Test("A source whose URL redirects (as providers do, to a CDN) is imported from where it leads")
    func importFollowsRedirects() async throws {
        let harness = try await ProxyHarness.start()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-redirect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 group-title="News",Redirected One
            \(harness.origin.baseURL)/files/one.ts?size=10
            """.utf8
        ).write(to: served.appendingPathComponent("list.m3u"))
        harness.origin.serveDirectory(served.path)

        let added = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json: #"{"location":"\#(harness.origin.baseURL)/redirect/2/static/list.m3u"}"#)
        #expect(added.status == 201)
        let id = try #require(try HTTP.json(added)["id"] as? Int)
        let refreshed = try await HTTP.fetch(harness.api + "/sources/\(id)/refresh", method: "POST")
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
        #expect(harness.origin.requests(path: "/static/list.m3u") == 1)
        let listed = try await HTTP.fetch(harness.api + "/channels?search=redirected")
        #expect((try HTTP.json(listed)["total"] as? Int) == 1)
        try await harness.stop()
    }
}
