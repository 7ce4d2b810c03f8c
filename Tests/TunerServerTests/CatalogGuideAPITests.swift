import Catalog
import Foundation
import Testing
import TunerTesting

@Suite("Catalog API: guide, catch-up, checks")
struct CatalogGuideAPITests {
    /// `YYYYMMDDhhmmss +0000`.
    static func xmltvTime(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
    }

    /// A playlist of three channels with a guide around the current hour, served by the origin.
    /// Now/next is asked at the middle of that hour (`at=`), so a run that crosses the hour
    /// boundary still finds the same programme on.
    struct Library {
        let harness: ProxyHarness
        let served: URL
        let sourceID: Int
        let hour: Int64
        var channels: [String: Int] = [:]
    }

    static func makeLibrary() async throws -> Library {
        let harness = try await ProxyHarness.start()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-guide-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let now = Int64(Date().timeIntervalSince1970)
        let hour = now - now % 3600
        var programmes = ""
        for (channel, name) in [("news.example", "News"), ("films.example", "Film")] {
            for index in -3..<6 {
                let start = hour + Int64(index) * 3600
                programmes += """
                    <programme channel="\(channel)" start="\(xmltvTime(start))" stop="\(xmltvTime(start + 3600))" catchup-id="\(channel)-\(index + 3)">\
                    <title>\(name) \(index + 3)</title><desc>About \(name) \(index + 3)</desc></programme>\n
                    """
            }
        }
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv><channel id="news.example"><display-name>News</display-name></channel>
            <channel id="films.example"><display-name>Films</display-name></channel>
            \(programmes)</tv>
            """.utf8
        ).write(to: served.appendingPathComponent("guide.xml"))
        try Data(
            """
            #EXTM3U x-tvg-url="\(harness.origin.baseURL)/static/guide.xml"
            #EXTINF:-1 tvg-id="news.example" catchup="append" catchup-days="2" catchup-source="&start={utc}&end={utcend}&id={catchup-id}",News One
            #EXTVLCOPT:http-referrer=https://provider.example/
            \(harness.origin.baseURL)/files/news.ts?size=3000
            #EXTINF:-1 tvg-id="unknown.example",Films Two
            \(harness.origin.baseURL)/files/films.ts?size=3000
            #EXTINF:-1 catchup="xc" catchup-days="1",Xtream Three
            \(harness.origin.baseURL)/live/user/pass/42.ts
            """.utf8
        ).write(to: served.appendingPathComponent("list.m3u"))
        harness.origin.serveDirectory(served.path)
        let added = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json: #"{"location":"\#(harness.origin.baseURL)/static/list.m3u"}"#)
        let sourceID = try #require(try HTTP.json(added)["id"] as? Int)
        #expect(try await HTTP.fetch(harness.api + "/sources/\(sourceID)/refresh", method: "POST").status == 200)
        var library = Library(harness: harness, served: served, sourceID: sourceID, hour: hour)
        let listed = try #require(
            try HTTP.json(try await HTTP.fetch(harness.api + "/channels"))["items"] as? [[String: Any]])
        for item in listed { library.channels[item["name"] as? String ?? ""] = item["id"] as? Int }
        return library
    }

    /// Imports the guide of the library's source (the API's refresh imports items only).
    static func importGuide(_ library: Library) async throws {
        // An XMLTV source of its own, pointing at the same guide.
        let guide = try await HTTP.fetch(
            library.harness.api + "/sources", method: "POST",
            json: #"{"location":"\#(library.harness.origin.baseURL)/static/guide.xml","kind":"xmltv"}"#)
        let guideID = try #require(try HTTP.json(guide)["id"] as? Int)
        #expect(try await HTTP.fetch(library.harness.api + "/sources/\(guideID)/refresh", method: "POST").status == 200)
    }

    static func finish(_ library: Library) async throws {
        try await library.harness.stop()
        try? FileManager.default.removeItem(at: library.served)
    }

    @Test("Now/next for a page of channels, the grid of a window, and one channel's programmes")
    func guideRoutes() async throws {
        let library = try await Self.makeLibrary()
        try await Self.importGuide(library)
        let api = library.harness.api
        let news = try #require(library.channels["News One"])

        let nowNext = try HTTP.json(try await HTTP.fetch(api + "/guide/now?limit=10&at=\(library.hour + 1800)"))
        let rows = try #require(nowNext["channels"] as? [[String: Any]])
        #expect(rows.count == 3)
        let newsRow = try #require(rows.first { ($0["item"] as? [String: Any])?["id"] as? Int == news })
        #expect((newsRow["now"] as? [String: Any])?["title"] as? String == "News 3")
        #expect((newsRow["next"] as? [String: Any])?["title"] as? String == "News 4")
        // No guide channel matches "Films Two" (yet): it is listed without programmes.
        let filmsRow = try #require(rows.first { ($0["item"] as? [String: Any])?["name"] as? String == "Films Two" })
        #expect(filmsRow["now"] == nil)

        let grid = try HTTP.json(
            try await HTTP.fetch(api + "/guide?ids=\(news)&from=\(library.hour - 1800)&to=\(library.hour + 7200)"))
        let gridRows = try #require(grid["channels"] as? [[String: Any]])
        let titles = (gridRows.first?["programmes"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
        #expect(titles == ["News 2", "News 3", "News 4"])
        #expect((gridRows.first?["programmes"] as? [[String: Any]])?.first?["description"] as? String == "About News 2")
        // Brief: titles and times without descriptions (what the web app's lists and grid show).
        let brief = try HTTP.json(
            try await HTTP.fetch(
                api + "/guide?ids=\(news)&from=\(library.hour - 1800)&to=\(library.hour + 7200)&brief=1"))
        let briefProgrammes = ((brief["channels"] as? [[String: Any]])?.first?["programmes"] as? [[String: Any]]) ?? []
        #expect(briefProgrammes.compactMap { $0["title"] as? String } == ["News 2", "News 3", "News 4"])
        #expect(briefProgrammes.allSatisfy { $0["description"] == nil })
        let briefNow = try HTTP.json(
            try await HTTP.fetch(api + "/guide/now?limit=10&brief=1&at=\(library.hour + 1800)"))
        let briefRow = (briefNow["channels"] as? [[String: Any]])?.first {
            ($0["item"] as? [String: Any])?["id"] as? Int == news
        }
        #expect((briefRow?["now"] as? [String: Any])?["title"] as? String == "News 3")
        #expect((briefRow?["now"] as? [String: Any])?["description"] == nil)
        #expect(try await HTTP.fetch(api + "/guide?from=100&to=50").status == 400)

        let channelGuide = try HTTP.json(
            try await HTTP.fetch(api + "/channels/\(news)/guide?from=\(library.hour)&to=\(library.hour + 3600)"))
        #expect((channelGuide["programmes"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["News 3"])
        #expect(try await HTTP.fetch(api + "/channels/99999/guide").status == 404)
        try await Self.finish(library)
    }

    @Test("A manual guide mapping applies at once, survives a refresh, and can be cleared")
    func guideMapping() async throws {
        let library = try await Self.makeLibrary()
        try await Self.importGuide(library)
        let api = library.harness.api
        let films = try #require(library.channels["Films Two"])

        let set = try await HTTP.fetch(
            api + "/channels/\(films)/guide-mapping", method: "PUT", json: #"{"epgID":"films.example"}"#)
        #expect(set.status == 200)
        func nowTitle() async throws -> String? {
            let page = try HTTP.json(try await HTTP.fetch(api + "/guide/now?ids=\(films)&at=\(library.hour + 1800)"))
            let row = (page["channels"] as? [[String: Any]])?.first
            return (row?["now"] as? [String: Any])?["title"] as? String
        }
        #expect(try await nowTitle() == "Film 3")
        #expect(try await HTTP.fetch(api + "/sources/\(library.sourceID)/refresh", method: "POST").status == 200)
        #expect(try await nowTitle() == "Film 3")
        let channelGuide = try HTTP.json(try await HTTP.fetch(api + "/channels/\(films)/guide"))
        #expect(channelGuide["mapping"] as? String == "films.example")

        #expect(try await HTTP.fetch(api + "/channels/\(films)/guide-mapping", method: "DELETE").status == 200)
        #expect(try await nowTitle() == nil)
        #expect(
            try await HTTP.fetch(api + "/channels/99999/guide-mapping", method: "PUT", json: #"{"epgID":"x"}"#).status
                == 404)
        try await Self.finish(library)
    }

    @Test("Catch-up gives a signed proxy URL for a past programme, from templates and Xtream timeshift")
    func catchup() async throws {
        let library = try await Self.makeLibrary()
        try await Self.importGuide(library)
        let api = library.harness.api
        let news = try #require(library.channels["News One"])
        let xtream = try #require(library.channels["Xtream Three"])
        let films = try #require(library.channels["Films Two"])

        let programmes = try HTTP.json(
            try await HTTP.fetch(api + "/channels/\(news)/guide?from=\(library.hour - 7200)&to=\(library.hour - 3600)"))
        let past = try #require((programmes["programmes"] as? [[String: Any]])?.first)
        let programmeID = try #require(past["id"] as? Int)
        let start = library.hour - 7200
        let byProgramme = try await HTTP.fetch(api + "/channels/\(news)/catchup?programme=\(programmeID)")
        #expect(byProgramme.status == 200)
        let proxyURL = try #require(try HTTP.json(byProgramme)["proxyURL"] as? String)
        // Played through the proxy, the catch-up URL reaches the origin with the channel's referrer.
        let played = try await HTTP.fetch(proxyURL)
        #expect(played.status == 200)
        #expect(played.body.count == 3000)
        let upstream = try #require(library.harness.origin.lastRequestURI(path: "/files/news.ts"))
        #expect(upstream.contains("start=\(start)&end=\(start + 3600)&id=news.example-1"))
        let headers = library.harness.origin.lastRequestHeaders(path: "/files/news.ts") ?? []
        #expect(headers.contains { $0.name.lowercased() == "referer" && $0.value == "https://provider.example/" })

        // Xtream: a timeshift URL, by start and end.
        let xc = try await HTTP.fetch(api + "/channels/\(xtream)/catchup?start=\(start)&end=\(start + 1800)")
        #expect(xc.status == 200)
        let xcProxy = try #require(try HTTP.json(xc)["proxyURL"] as? String)
        // Nothing serves that path at the origin; what matters is the URL it was asked for.
        _ = try await HTTP.fetch(xcProxy)
        let parts = Self.xmltvTime(start)
        let stamp =
            "\(parts.prefix(4))-\(parts.dropFirst(4).prefix(2))-\(parts.dropFirst(6).prefix(2)):\(parts.dropFirst(8).prefix(2))-\(parts.dropFirst(10).prefix(2))"
        #expect(library.harness.origin.lastRequestURI(path: "/timeshift/user/pass/30/\(stamp)/42.ts") != nil)

        #expect(try await HTTP.fetch(api + "/channels/\(films)/catchup?start=\(start)&end=\(start + 60)").status == 409)
        #expect(
            try await HTTP.fetch(
                api + "/channels/\(news)/catchup?start=\(library.hour + 7200)&end=\(library.hour + 9000)"
            ).status == 409)
        #expect(
            try await HTTP.fetch(
                api + "/channels/\(news)/catchup?start=\(start - 5 * 86_400)&end=\(start - 5 * 86_400 + 60)"
            ).status == 409)
        #expect(try await HTTP.fetch(api + "/channels/\(news)/catchup").status == 400)
        #expect(try await HTTP.fetch(api + "/channels/\(news)/catchup?programme=99999999").status == 404)
        try await Self.finish(library)
    }

    @Test("Times near Int64's limits are refused with 400, and the server keeps answering")
    func hostileTimes() async throws {
        let library = try await Self.makeLibrary()
        try await Self.importGuide(library)
        let api = library.harness.api
        let news = try #require(library.channels["News One"])
        let max = "9223372036854775807"
        let min = "-9223372036854775808"
        for path in [
            "/guide?from=\(max)", "/guide?to=\(max)", "/guide?from=\(min)", "/guide?from=\(min)&to=\(max)",
            "/guide?from=253402300800", "/guide/now?at=\(max)", "/guide/now?at=\(min)",
            "/channels/\(news)/guide?from=\(min)", "/channels/\(news)/guide?to=\(max)",
            "/channels/\(news)/catchup?start=\(min)&end=0", "/channels/\(news)/catchup?start=0&end=\(max)",
            "/channels/\(news)/catchup?start=\(max)&end=\(max)",
            // Malformed non-ASCII text, which Foundation's date formatters can trap on.
            "/guide?from=mo%DB%96%EF%BF%BD%EF%BF%BD", "/guide/now?at=2024-01-01T00%F0%9F%98%80",
        ] {
            let answer = try await HTTP.fetch(api + path)
            #expect(answer.status == 400, "\(path): \(answer.status)")
        }
        // The edges of the supported range are accepted.
        #expect(try await HTTP.fetch(api + "/guide?from=253402200000&to=253402300799").status == 200)
        #expect(try await HTTP.fetch(api + "/channels/\(news)/guide?from=-62135596800&to=0").status == 200)
        #expect(try await HTTP.fetch(api + "/guide").status == 200)
        try await Self.finish(library)
    }

    @Test("The catch-up URL builder gives no URL for times outside years 1 to 9999")
    func catchupBuilderBoundsTimes() {
        let catchup = CatalogCatchup(type: "append", days: 2, source: "?utc={utc}&d={duration}&t={Y}-{m}-{d}")
        let inRange = CatchupURLBuilder.Request(streamURL: "http://p/x", catchup: catchup, start: 0, end: 60, now: 100)
        #expect(CatchupURLBuilder.url(for: inRange) == "http://p/x?utc=0&d=60&t=1970-01-01")
        for (start, end) in [(Int64.min, Int64(0)), (Int64(0), Int64.max), (Int64.max - 1, Int64.max)] {
            let request = CatchupURLBuilder.Request(
                streamURL: "http://p/x", catchup: catchup, start: start, end: end, now: 100)
            #expect(CatchupURLBuilder.url(for: request) == nil)
            // Found by the catchup fuzz target: fill alone used to trap on end - start.
            #expect(!CatchupURLBuilder.fill("{duration}{offset}{Y}{utc}", request).isEmpty)
        }
    }

    @Test("Stream checks through the API: all channels of a source or some ids, shown in listings")
    func streamChecks() async throws {
        let library = try await Self.makeLibrary()
        let api = library.harness.api
        let news = try #require(library.channels["News One"])
        let some = try await HTTP.fetch(api + "/channels/check", method: "POST", json: #"{"ids":[\#(news)]}"#)
        #expect(some.status == 200)
        #expect(try HTTP.json(some)["online"] as? Int == 1)

        let all = try HTTP.json(
            try await HTTP.fetch(api + "/channels/check", method: "POST", json: #"{"source":\#(library.sourceID)}"#))
        #expect(all["checked"] as? Int == 3)
        #expect(all["online"] as? Int == 2)
        #expect(all["offline"] as? Int == 1)
        let listed = try #require(try HTTP.json(try await HTTP.fetch(api + "/channels"))["items"] as? [[String: Any]])
        let xtream = try #require(listed.first { $0["name"] as? String == "Xtream Three" })
        let check = try #require(xtream["streamCheck"] as? [String: Any])
        #expect(check["online"] as? Bool == false)
        #expect(check["reason"] as? String == "HTTP 404")
        #expect(check["checkedAt"] is String)
        #expect(try await HTTP.fetch(api + "/channels/check", method: "POST", json: #"{"ids":[99999]}"#).status == 404)

        let patched = try await HTTP.fetch(
            api + "/sources/\(library.sourceID)", method: "PATCH", json: #"{"refreshInterval":3600}"#)
        #expect(patched.status == 200)
        #expect(try HTTP.json(patched)["refreshInterval"] as? Double == 3600)
        try await Self.finish(library)
    }
}
