import Foundation
import Routing
import Testing

@Suite struct RouteTests {
    /// One of every case, with awkward values where a case takes text.
    static let every: [Route] = [
        .home, .liveTV(group: nil), .liveTV(group: "News & Sport/UK 100%"), .favourites, .channel(id: 42),
        .play(channel: 42, at: nil),
        .play(channel: 7, at: 1_700_000_000), .guide(at: nil), .guide(at: 0), .films, .film(id: 3), .shows,
        .show(id: 9), .episode(id: 11),
        .search(query: "la casa de papel+2 #1 ?x=y&z"), .search(query: ""), .downloads,
        .download(url: URL(string: "https://cdn.example/a%20b/film.mp4?token=x&y=1#t")!), .uploads, .sources,
        .source(id: 1),
        .outputs, .streams, .cache, .settings, .notFound("/no/such page"),
    ]

    @Test(arguments: every) func roundTripsThroughWebPaths(route: Route) {
        #expect(Route(webPath: route.webPath) == route, "\(route.webPath)")
    }

    @Test(arguments: every) func roundTripsThroughDeepLinks(route: Route) {
        let link = route.deepLink
        #expect(link.scheme == "tuner")
        #expect(Route(url: link) == route, "\(link)")
    }

    @Test(arguments: every) func roundTripsThroughWebURLs(route: Route) throws {
        let url = try #require(URL(string: "http://192.168.1.10:8080" + route.webPath))
        #expect(Route(url: url) == route, "\(url)")
    }

    @Test func readsTheLinksPeopleWrite() {
        #expect(Route(url: URL(string: "tuner://channel/42/play")!) == .play(channel: 42, at: nil))
        #expect(Route(url: URL(string: "tuner://CHANNEL/42/Play?at=100")!) == .play(channel: 42, at: 100))
        #expect(Route(url: URL(string: "tuner://home")!) == .home)
        #expect(Route(webPath: "/") == .home)
        #expect(Route(webPath: "//channel//42/") == .channel(id: 42))
        #expect(Route(webPath: "/search?q=big+bang&q=other") == .search(query: "big bang"))
        #expect(Route(webPath: "/tv?group=") == .liveTV(group: nil))
        #expect(Route.play(channel: 42, at: nil).deepLink.absoluteString == "tuner://channel/42/play")
        #expect(Route.guide(at: 5).webPath == "/guide?at=5")
    }

    @Test func anythingElseIsNotFoundAndNeverTraps() {
        for path in [
            "/channel/abc", "/channel/-1", "/channel/+1", "/channel/99999999999999999999", "/channel/42/play?at=soon",
            "/guide?at=-5", "/films/1/2", "/episode/1", "/episode/x/play", "/downloads/new?url=file:///etc/passwd",
            "/downloads/new?url=",
            "/downloads/new", "/api/v1/health", "/stream/x/y", "/play/default/1", "/%zz", "/channel/%00", "/x?%=%",
        ] {
            let route = Route(webPath: path)
            guard case .notFound = route else {
                Issue.record("\(path) parsed as \(route)")
                continue
            }
        }
        for link in ["tuner://", "tuner:channel", "tuner://nothing/here", "ftp://h/channel/1", "file:///channel/1"] {
            let url = URL(string: link)!
            guard case .notFound = Route(url: url) else {
                Issue.record("\(link) parsed as \(Route(url: url))")
                continue
            }
        }
    }
}
