import Testing

@testable import Catalog

@Suite("Xtream credentials from what users paste")
struct XtreamCredentialsTests {
    @Test("A pasted panel URL gives the server, username and password; given values win; a missing one is refused")
    func parsesPastedURLs() {
        #expect(
            XtreamCredentials.parse(
                "http://panel.example:8080/player_api.php?username=jo&password=s%26cret&action=get_live_streams")
                == XtreamCredentials(server: "http://panel.example:8080", username: "jo", password: "s&cret"))
        #expect(
            XtreamCredentials.parse("https://panel.example/sub/get.php?username=jo&password=pw&type=m3u_plus&output=ts")
                == XtreamCredentials(server: "https://panel.example/sub", username: "jo", password: "pw"))
        #expect(
            XtreamCredentials.parse(" http://panel.example:8080/ ", username: "jo", password: "pw")
                == XtreamCredentials(server: "http://panel.example:8080", username: "jo", password: "pw"))
        #expect(
            XtreamCredentials.parse(
                "http://panel.example/player_api.php?username=old&password=old", username: "new", password: "pw")
                == XtreamCredentials(server: "http://panel.example", username: "new", password: "pw"))
        #expect(XtreamCredentials.parse("http://panel.example/player_api.php?username=jo") == nil)
        #expect(XtreamCredentials.parse("http://panel.example", username: "jo", password: "") == nil)
    }
}
