import Foundation
import Testing
import TunerTesting

/// The web app's Films and Series pages, served by the real `tuner serve` and used through
/// headless Chromium: a poster grid of 2,400 films that keeps the DOM small, group filter and
/// search, keyboard only (arrows, Enter, Escape back), details from an Xtream panel, Play with
/// resume, Download to 100 %, a format the browser cannot play said in words, seasons and episodes.
/// Screenshots go to `.build/test-output/screenshots/web-app/`.
@Suite(.serialized) struct WebLibraryEndToEndTests {
    static let hostileName = WebAppEndToEndTests.hostileName
    static let hostileGroup = WebAppEndToEndTests.hostileGroup
    static let films = 2_400

    /// An Xtream panel with one film that has details and one series of two seasons.
    static func panel(poster: String) -> [String: String] {
        [
            "get_live_categories": "[]", "get_live_streams": "[]",
            "get_vod_categories": #"[{"category_id":"30","category_name":"Drama"}]"#,
            "get_vod_streams": #"""
            [{"num":1,"name":"A Film With Details","stream_id":301,"category_id":"30",
              "container_extension":"mkv","stream_icon":"\#(poster)"}]
            """#,
            "get_vod_info:301": #"""
            {"info":{"plot":"<img src=x onerror=\"window.pwned=4\">A plot with details.","genre":"Drama",
             "releasedate":"2019-05-01","rating":"7.5","duration_secs":"5400"},
             "movie_data":{"stream_id":301,"name":"A Film With Details","container_extension":"mkv"}}
            """#,
            "get_series_categories": #"[{"category_id":"20","category_name":"Fantasy"}]"#,
            "get_series": #"[{"num":1,"name":"American Gods","series_id":77,"category_id":"20","cover":"\#(poster)"}]"#,
            "get_series_info": #"""
            {"seasons":[],"info":{"name":"American Gods"},"episodes":{
             "1":[{"id":"5001","episode_num":"1","title":"The Bone Orchard","container_extension":"mkv","season":1,
                   "info":{"duration_secs":"3600"}},
                  {"id":"5002","episode_num":"2","title":"<script>window.pwned=5</script>Spoons",
                   "container_extension":"mkv","season":1}],
             "2":[{"id":"5101","episode_num":"1","title":"House on the Rock","container_extension":"mkv","season":2}]}}
            """#,
        ]
    }

    struct Fixture {
        let workspace: Workspace
        let files: TestOrigin
        let panel: XtreamFake
        let server: TunerProcess

        func remove() async {
            _ = await server.stop()
            try? await files.shutdown()
            try? await panel.shutdown()
            workspace.remove()
        }
    }

    /// A playlist of films (one real MP4, one MPEG-TS with a hostile name, 2,400 more) and a
    /// series with MP4 episodes, plus the panel; both imported into a fresh server.
    static func start(curl: String, ffmpeg: String) async throws -> Fixture {
        let workspace = try Workspace()
        let served = workspace.file("served")
        for folder in ["movie/u/p", "series/u/p"] {
            try FileManager.default.createDirectory(atPath: served + "/" + folder, withIntermediateDirectories: true)
        }
        let made = try await ExternalCommand.run(
            ffmpeg,
            [
                "-hide_banner", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=240x136:rate=25:duration=60", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100:duration=60", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", "-b:v", "80k", "-c:a", "aac", "-b:a", "32k", "-ac", "1", "-movflags",
                "+faststart", served + "/movie/u/p/101.mp4",
            ], timeout: .seconds(120))
        #expect(made.succeeded, "\(made.transcript)")
        let poster = try await ExternalCommand.run(
            ffmpeg,
            [
                "-hide_banner", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=200x300:rate=1:duration=1", "-frames:v", "1", served + "/poster.png",
            ], timeout: .seconds(60))
        #expect(poster.succeeded, "\(poster.transcript)")
        for episode in ["201", "202", "203"] {
            try FileManager.default.copyItem(
                atPath: served + "/movie/u/p/101.mp4", toPath: served + "/series/u/p/\(episode).mp4")
        }
        try Data(repeating: 0x47, count: 188 * 64).write(to: URL(fileURLWithPath: served + "/movie/u/p/102.ts"))
        let files = try await TestOrigin.start()
        files.serveDirectory(served)
        let base = files.baseURL + "/static"
        var playlist = """
            #EXTM3U
            #EXTINF:-1 tvg-logo="\(base)/poster.png" group-title="Drama",Big Buck Test
            \(base)/movie/u/p/101.mp4
            #EXTINF:-1 tvg-logo="\(base)/poster.png" group-title="\(hostileGroup)",\(hostileName)
            \(base)/movie/u/p/102.ts

            """
        for index in 1...films {
            let logo = index % 10 == 0 ? #" tvg-logo="\#(base)/poster.png""# : ""
            playlist += """
                #EXTINF:-1\(logo) group-title="\(index % 2 == 0 ? "Action" : "Comedy")",Film \(index)
                \(base)/movie/u/p/\(1000 + index).mp4

                """
        }
        for (index, episode) in ["S01 E01", "S01 E02", "S02 E01"].enumerated() {
            playlist += """
                #EXTINF:-1 tvg-logo="\(base)/poster.png" group-title="Shows",Test Show \(episode)
                \(base)/series/u/p/\(201 + index).mp4

                """
        }
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/vod.m3u"))
        let panel = try await XtreamFake.start(responses: Self.panel(poster: base + "/poster.png"))
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--allow-fetch", "loopback"])
        let fixture = Fixture(workspace: workspace, files: files, panel: panel, server: server)
        let sources = [
            #"{"location":"\#(base)/vod.m3u"}"#,
            #"{"location":"\#(panel.baseURL)","kind":"xtream","username":"user","password":"pass"}"#,
        ]
        for (index, body) in sources.enumerated() {
            let added = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/sources",
                options: ["-X", "POST", "-H", "Content-Type: application/json", "--data", body])
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            let refreshed = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/sources/\(index + 1)/refresh", options: ["-X", "POST"])
            #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
        }
        return fixture
    }

    /// The id of the first item of `kind` whose name matches `search`.
    static func itemID(_ curl: String, _ base: String, kind: String, search: String) async throws -> Int {
        let query = search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? search
        let page = try await Curl.fetch(curl, base + "/api/v1/channels?kind=\(kind)&search=\(query)&limit=1")
        let object = try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any]
        let items = object?["items"] as? [[String: Any]] ?? []
        return try #require(items.first?["id"] as? Int, "no \(kind) named \(search)")
    }

    @Test("films and series: a poster grid of thousands, details, play with resume, download, episodes, keyboard only")
    func filmsAndSeries() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .chromium, .chromedriver) else { return }
        let fixture = try await Self.start(curl: tools[.curl], ffmpeg: tools[.ffmpeg])
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL
        let ids = [
            try await Self.itemID(tools[.curl], base, kind: "movie", search: "Details"),
            try await Self.itemID(tools[.curl], base, kind: "movie", search: "Big Buck"),
            try await Self.itemID(tools[.curl], base, kind: "movie", search: "Evil"),
            try await Self.itemID(tools[.curl], base, kind: "series", search: "American Gods"),
            try await Self.itemID(tools[.curl], base, kind: "series", search: "Test Show"),
        ]
        let result = try await HeadlessChromium.run(
            steps: Self.steps, arguments: [base, Self.hostileName, String(Self.films + 3)] + ids.map(String.init),
            chromium: tools[.chromium], chromedriver: tools[.chromedriver],
            screenshots: HeadlessChromium.screenshotFolder(suite: "web-app"), timeout: .seconds(300))
        #expect(result.succeeded, "\(result.transcript)\n\(fixture.server.log.suffix(3000))")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true, "\(result.transcript)")
        // The downloads the pages asked for reached the server and finished, with the titles' names.
        let transfers = try await Curl.fetch(tools[.curl], base + "/api/v1/transfers")
        let list = (try JSONSerialization.jsonObject(with: Data(transfers.body)) as? [String: Any])?["transfers"]
        let done = (list as? [[String: Any]] ?? []).filter { $0["state"] as? String == "complete" }
        let names = Set(done.compactMap { $0["destinationName"] as? String })
        #expect(names.contains("A Film With Details.mkv"), "\(names)")
        #expect(names.contains { $0.hasPrefix("American Gods S1 E1 The Bone Orchard") }, "\(names)")
        // The panel's stream reached the disk through the proxy, whole.
        let film = try #require(done.first { $0["destinationName"] as? String == "A Film With Details.mkv" })
        #expect(film["totalBytes"] as? Int == XtreamFake.streamBody(kind: "movie", file: "301.mkv").utf8.count)
    }

    /// args: the server's base URL, the hostile name, how many films there are, then the ids of
    /// the film with details, the MP4 film, the MPEG-TS film (hostile name), the panel's series and
    /// the playlist's series.
    static let steps = #"""
        base, hostile, total = args[0], args[1], int(args[2])
        details_id, mp4_id, ts_id, gods_id, show_id = args[3:8]

        def press(*keys):
            chain = ActionChains(driver)
            for key in keys:
                chain = chain.send_keys(key)
            chain.perform()

        def titles():
            return js("""return [...document.querySelectorAll('#library-grid .card-cell')]
                .sort((a, b) => a.dataset.index - b.dataset.index).map(c => c.querySelector('.title').textContent)""")

        def play_muted(seconds):
            wait_for("""const v = document.getElementById('video'); v.muted = true;
                if (v.paused) v.play().catch(() => {});
                if (v.error) throw new Error('media error ' + v.error.code + ' ' + v.error.message);
                return v.currentTime > arguments[0]""", 60, seconds)

        # Films: a grid of posters, only the rows in view in the DOM; names are text, posters through Tuner.
        driver.get(base + "/films")
        wait_for("return document.querySelectorAll('#library-grid .card-cell').length > 6")
        wait_for("return parseInt(document.getElementById('library-status').textContent) === arguments[0]", 20, total)
        check(hostile in titles(), "the hostile name is not shown as text: " + repr(titles()[:4]))
        check(js("return document.querySelectorAll('#library-grid script, #library-grid img[src=x]').length") == 0,
              "catalog values became elements")
        wait_for("const img = document.querySelector('#library-grid img.poster'); return img && img.complete && img.naturalWidth > 1", 20)
        sources = js("return [...document.querySelectorAll('#library-grid img.poster')].map(i => i.getAttribute('src'))")
        check(all(s.startswith("/api/v1/channels/") and s.endswith("/logo") for s in sources), "posters: " + repr(sources[:3]))
        check(js("return document.querySelectorAll('*').length") < 2000, "too many elements")
        screenshot("films")
        js("const g = document.getElementById('library-grid'); g.scrollTop = g.scrollHeight")
        wait_for("return [...document.querySelectorAll('#library-grid .card-cell')].some(c => Number(c.dataset.index) === arguments[0] - 1)", 20, total)
        check(js("return document.querySelectorAll('*').length") < 2000, "too many elements at the end of the grid")

        # A group: the same name in two sources is one group; the address follows.
        js("const s = document.getElementById('library-group'); s.value = 'Drama'; s.dispatchEvent(new Event('change'))")
        wait_for("return location.search === '?group=Drama' && document.getElementById('library-status').textContent === '2 films'", 20)
        check(sorted(titles()) == ["A Film With Details", "Big Buck Test"], "Drama: " + repr(titles()))
        js("const s = document.getElementById('library-group'); s.value = ''; s.dispatchEvent(new Event('change'))")

        # Search as you type, then the keyboard alone: into the grid, across, down, Enter opens, Escape comes back.
        search = driver.find_element(By.ID, "library-search")
        search.send_keys("Film 12")
        wait_for("""return location.search === '?q=Film+12' && document.querySelectorAll('#library-grid .card-cell').length > 8
            && [...document.querySelectorAll('#library-grid .card-cell .title')].every(t => t.textContent.startsWith('Film 12'))""", 20)
        search.send_keys(Keys.ARROW_DOWN)
        wait_for("return document.activeElement.dataset.index === '0'")
        press(Keys.ARROW_RIGHT)
        wait_for("return document.activeElement.dataset.index === '1'")
        columns = js("return Math.floor(document.getElementById('library-grid').clientWidth / 168)")
        press(Keys.ARROW_DOWN)
        wait_for("return document.activeElement.dataset.index === String(arguments[0])", 10, 1 + columns)
        chosen = js("return document.activeElement.querySelector('.title').textContent")
        screenshot("films-search")
        press(Keys.ENTER)
        wait_for("return /^\\/films\\/\\d+$/.test(location.pathname)", 20)
        check(js("return document.getElementById('title-name').textContent") == chosen, "opened another film")
        wait_for("return document.activeElement.id === 'play'")
        press(Keys.ESCAPE)
        wait_for("return location.pathname === '/films' && document.activeElement.dataset.index === String(arguments[0])", 20, 1 + columns)

        # A film with details from the panel; Download (keyboard) reaches 100 % on the page.
        driver.get(base + "/films/" + details_id)
        wait_for("return document.getElementById('plot').textContent.endsWith('A plot with details.')", 20)
        facts = js("return document.getElementById('facts').textContent")
        check("2019" in facts and "7.5" in facts and "1 h 30 min" in facts and "Drama" in facts, "facts: " + facts)
        check(js("return window.pwned === undefined"), "the plot ran script")
        wait_for("const img = document.querySelector('.title-head img.poster'); return img.complete && img.naturalWidth > 1", 20)
        check(js("return document.querySelector('.title-head img.poster').getAttribute('src')") == "/api/v1/channels/" + details_id + "/logo", "poster not through Tuner")
        wait_for("return document.getElementById('connection').dataset.state === 'live'")
        wait_for("return document.activeElement.id === 'play'")
        press(Keys.ARROW_RIGHT)
        wait_for("return document.activeElement.id === 'download'")
        press(Keys.ENTER)
        wait_for("const d = document.getElementById('download-progress'); return d.dataset.state === 'complete' && d.querySelector('progress').value === 1", 60)
        screenshot("film")
        driver.get(base + "/downloads")
        wait_for("return [...document.querySelectorAll('#transfers li[data-state=complete] .name')].some(n => n.textContent === 'A Film With Details.mkv')", 20)

        # Play an MP4 film with the keyboard; the position is remembered; Escape back; "Resume at" continues there.
        driver.get(base + "/films/" + mp4_id)
        wait_for("return document.activeElement.id === 'play'")
        press(Keys.ENTER)
        wait_for("return location.pathname === '/channel/' + arguments[0] + '/play'", 20, mp4_id)
        play_muted(6)
        js("document.getElementById('video').pause()")
        saved = wait_for("""const v = document.getElementById('video');
            const all = JSON.parse(localStorage.getItem('tuner.resume') || '{}');
            const entry = all['movie:' + arguments[0]];
            return entry && entry.position === Math.floor(v.currentTime) && entry.position""", 10, int(mp4_id))
        check(saved >= 5, "saved position: " + repr(saved))
        screenshot("player-film")
        js("document.getElementById('stage').focus()")
        press(Keys.ESCAPE)
        wait_for("return location.pathname === '/films/' + arguments[0]", 20, mp4_id)
        words = "Resume at 0:%02d" % saved
        wait_for("const r = document.getElementById('resume'); return !r.hidden && r.textContent === arguments[0] && document.activeElement === r", 10, words)
        screenshot("film-resume")
        press(Keys.ENTER)
        wait_for("return location.hash === '#resume'", 20)
        wait_for("const v = document.getElementById('video'); return v.readyState >= 1 && v.currentTime >= arguments[0] - 1", 30, saved)
        wait_for("return document.getElementById('player-status').textContent === arguments[0]", 10, "Resumed at 0:%02d" % saved)

        # An MPEG-TS film: the page says the browser cannot play it and offers the link; its name is text.
        driver.get(base + "/films/" + ts_id)
        check(js("return document.getElementById('title-name').textContent") == hostile, "hostile film name")
        check(js("return window.pwned === undefined"), "a film name ran script")
        driver.get(base + "/channel/" + ts_id + "/play")
        wait_for("return document.getElementById('player-status').textContent.includes('cannot play an MPEG-TS file')", 20)
        check(not js("return document.getElementById('external').hidden"), "no link for another player")
        check("/stream/" in js("return document.getElementById('external-link').value"), "the link is not Tuner's")
        screenshot("player-ts")

        # Series: the grid, a panel's series with two seasons (keyboard), an episode's download.
        driver.get(base + "/shows")
        wait_for("return document.querySelectorAll('#library-grid .card-cell').length === 2")
        check(sorted(titles()) == ["American Gods", "Test Show"], "series: " + repr(titles()))
        screenshot("shows")
        driver.get(base + "/shows/" + gods_id)
        wait_for("return document.querySelectorAll('#episodes li').length === 2 && document.querySelectorAll('#seasons button').length === 2", 20)
        check(js("return document.getElementById('facts').textContent") == "2 seasons · 3 episodes", "facts")
        check(any(t.endswith("Spoons") and "<script>" in t for t in js("return [...document.querySelectorAll('#episodes .title')].map(t => t.textContent)")), "hostile episode title")
        check(js("return window.pwned === undefined"), "an episode title ran script")
        wait_for("return document.getElementById('connection').dataset.state === 'live'")
        # The answer to the download's POST reaches the page three seconds late, after the task's
        # events (a short download can end first): the bar still ends full.
        js("const f = window.fetch; window.fetch = async (...a) => { const r = await f(...a); if ((a[1] || {}).method === 'POST' && String(a[0]).endsWith('/api/v1/transfers')) await new Promise(s => setTimeout(s, 3000)); return r; }")
        js("document.querySelector('#episodes li .download').focus()")
        press(Keys.ENTER)
        wait_for("const d = document.querySelector('#episodes li .download-progress'); return d?.dataset.state === 'complete' && d.querySelector('progress').value === 1", 60)
        said = js("return document.getElementById('title-status').textContent")
        check(said.endswith("is downloaded (in the data folder's downloads/)."), "the page says " + repr(said))
        screenshot("show")
        js("document.querySelector('#seasons button').focus()")
        press(Keys.ARROW_RIGHT, Keys.ENTER)
        wait_for("return document.querySelectorAll('#episodes li').length === 1 && document.querySelectorAll('#seasons button')[1].getAttribute('aria-pressed') === 'true'", 10)
        check(js("return document.querySelector('#episodes .title').textContent") == "House on the Rock", "season 2")

        # A playlist's series: an episode plays in the player; Escape returns to the series.
        driver.get(base + "/shows/" + show_id)
        wait_for("return document.querySelectorAll('#episodes li').length === 2")
        js("document.querySelector('#episodes li a.play').focus()")
        press(Keys.ENTER)
        wait_for("return /^\\/episode\\/\\d+\\/play$/.test(location.pathname)", 20)
        check(js("return document.querySelector('.overlay .channel-name').textContent").startswith("Test Show · S1 E1"), "episode heading")
        play_muted(2)
        screenshot("player-episode")
        js("document.getElementById('stage').focus()")
        press(Keys.ESCAPE)
        wait_for("return location.pathname === '/shows/' + arguments[0]", 20, show_id)

        # A phone: the grid fits 360 px.
        driver.set_window_size(360, 740)
        driver.get(base + "/films")
        wait_for("return document.querySelectorAll('#library-grid .card-cell').length > 2")
        check(js("return document.documentElement.scrollWidth") <= 360, "the films page is wider than 360 px")
        screenshot("films-360")
        report(done=True)
        """#
}
