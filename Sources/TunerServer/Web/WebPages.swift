import Catalog
import Foundation
import Routing
import TunerAPI
import TunerApp

/// The pages' content, rendered from values the controller read from the feature objects. Pure:
/// values in, HTML out; every catalog value goes through ``HTML``'s escaping.
enum WebPages {
    /// A group in Live TV's side list: the same name in several sources is one group.
    struct GroupEntry: Sendable, Equatable {
        var name: String
        var count: Int
    }

    /// Live TV: groups, search, and the channel list (rows drawn by `tv.js`, only those in view).
    static func liveTV(groups: [GroupEntry], group: String?, favourites: Bool, search: String) -> WebPage {
        let all = group == nil && !favourites
        var items: [HTML] = [
            "<li><a href=\"/tv\"\(all ? HTML(#" aria-current="page""#) : "")>All channels</a></li>",
            "<li><a href=\"/favourites\"\(favourites ? HTML(#" aria-current="page""#) : "")>Favourites</a></li>",
        ]
        for entry in groups {
            let current: HTML = entry.name == group ? #" aria-current="page""# : ""
            items.append(
                """
                <li><a href="\(Route.liveTV(group: entry.name).webPath)"\(current)><span class="name">\(entry.name)\
                </span> <span class="count">\(entry.count)</span></a></li>
                """)
        }
        let heading = favourites ? "Favourites" : group ?? "All channels"
        return WebPage(
            title: favourites ? "Favourites" : "Live TV", section: .liveTV(group: nil), module: "tv.js", name: "tv",
            content: """
                <div class="tv">
                <nav class="groups" aria-label="Groups"><ul class="group-list">\(items)</ul></nav>
                <section class="channels" aria-labelledby="list-heading">
                <div class="toolbar">
                <h1 id="list-heading">\(heading)</h1>
                <input type="search" id="search" name="q" value="\(search)" placeholder="Search channels" \
                aria-label="Search channels" autocomplete="off">
                </div>
                <p class="hint">\(favourites ? "Drag a channel, or press Alt+↑/↓ on it, to reorder. " : "")\
                ↑/↓ move, Enter plays, F toggles a favourite.</p>
                <div id="channel-list" class="vlist" role="listbox" aria-label="Channels" \
                data-group="\(group)" data-favourites="\(favourites ? "1" : "0")"></div>
                <p id="list-status" class="status" role="status"></p>
                </section>
                </div>
                """)
    }

    /// The player: a native `<video>` for one channel (with channel up/down and an info overlay)
    /// or film (with resume and Download), driven by `player.js`.
    static func player(item: CatalogItem, at: Int64?) -> WebPage {
        guard item.kind == .live else {
            let back = item.kind == .series ? Route.show(id: item.id) : Route.film(id: item.id)
            return vodPlayer(
                id: item.id, kind: item.kind.rawValue, title: item.name, heading: item.name, back: back,
                section: item.kind == .series ? .shows : .films)
        }
        return WebPage(
            title: item.name, section: .liveTV(group: nil), module: "player.js", name: "player",
            content: """
                <section class="player" id="player" data-id="\(item.id)" data-kind="\(item.kind.rawValue)" \
                data-at="\(at.map(String.init))" data-catchup="\(item.catchup == nil ? "0" : "1")">
                <div class="stage" id="stage" tabindex="0" aria-label="Player: ↑/↓ or PageUp/PageDown change \
                channel, I shows what is on; with time-shift, space pauses and ←/→ go back and forward 10 s">
                <video id="video" playsinline autoplay controls></video>
                <div class="overlay" id="overlay" aria-live="polite">
                <div class="channel-name">\(item.number.map { $0 + " " })\(item.name)</div>
                <div class="now" id="overlay-now"></div>
                <progress id="overlay-progress" max="1" value="0"></progress>
                <div class="next" id="overlay-next"></div>
                </div>
                </div>
                <div class="controls">
                <button type="button" id="channel-down" aria-label="Previous channel">▼ Channel</button>
                <button type="button" id="channel-up" aria-label="Next channel">▲ Channel</button>
                <button type="button" id="info">Info</button>
                <button type="button" id="pip">Picture in picture</button>
                <span class="timeshift" id="timeshift" hidden>
                <button type="button" id="ts-back60" aria-label="Back 60 seconds">« 60 s</button>
                <button type="button" id="ts-back10" aria-label="Back 10 seconds">‹ 10 s</button>
                <button type="button" id="ts-forward10" aria-label="Forward 10 seconds">10 s ›</button>
                <button type="button" id="ts-live">Live</button>
                <span id="ts-behind" class="behind" aria-live="polite"></span>
                </span>
                <span id="player-status" class="status" role="status"></span>
                </div>
                </section>
                """)
    }

    /// The player of one episode of a series.
    static func player(episode: CatalogEpisode, series: CatalogItem?) -> WebPage {
        let number: String =
            switch (episode.season, episode.episode) {
            case (let season?, let number?): "S\(season) E\(number) · "
            case (nil, let number?): "E\(number) · "
            default: ""
            }
        let heading = (series.map { $0.name + " · " } ?? "") + number + episode.title
        return vodPlayer(
            id: episode.id, kind: "episode", title: heading, heading: heading,
            back: series.map { Route.show(id: $0.id) } ?? .shows, section: .shows)
    }

    /// A film or an episode: no channels to change; resume where it was left, download it, and
    /// Escape (or the Back link) returns to its page.
    private static func vodPlayer(
        id: Int64, kind: String, title: String, heading: String, back: Route, section: Route
    ) -> WebPage {
        WebPage(
            title: title, section: section, module: "player.js", name: "player",
            content: """
                <section class="player" id="player" data-id="\(id)" data-kind="\(kind)" data-back="\(back.webPath)" \
                data-name="\(heading)">
                <h1 class="player-title">\(heading)</h1>
                <div class="stage" id="stage" tabindex="0" aria-label="Player: Space pauses, ←/→ seek, \
                Escape goes back">
                <video id="video" playsinline autoplay controls></video>
                <div class="overlay" id="overlay" aria-live="polite">
                <div class="channel-name">\(heading)</div>
                </div>
                </div>
                <div class="controls">
                <a class="button" id="back" href="\(back.webPath)">← Back</a>
                <button type="button" id="resume" hidden>Resume</button>
                <button type="button" id="download">Download</button>
                <button type="button" id="pip">Picture in picture</button>
                <span id="player-status" class="status" role="status"></span>
                </div>
                <div id="external" class="external" hidden>
                <label for="external-link">Open in VLC or another player</label>
                <input id="external-link" class="copy-source" readonly>
                <button type="button" class="copy">Copy</button>
                </div>
                </section>
                """)
    }

    /// The guide grid: channels by the next 24 hours (`guide.js` draws the rows and hours in view).
    static func guide(at: Int64?) -> WebPage {
        WebPage(
            title: "Guide", section: .guide(at: nil), module: "guide.js", name: "guide",
            content: """
                <section class="guide-page" aria-labelledby="guide-heading">
                <div class="toolbar"><h1 id="guide-heading">Guide</h1>
                <p class="hint">Arrows move, Enter plays (a past programme with catch-up plays from its start).\
                </p></div>
                <div id="guide" class="guide" role="grid" aria-label="Programme guide" tabindex="0" \
                data-at="\(at.map(String.init))"></div>
                <p id="guide-status" class="status" role="status"></p>
                </section>
                """)
    }

    /// Recordings: upcoming (with the conflicts computed ahead), recording now with a live bar,
    /// done and failed, and the rules with a form to add one (`recordings.js`, `recordings` topic).
    static func recordings() -> WebPage {
        WebPage(
            title: "Recordings", section: .recordings, module: "recordings.js", name: "recordings",
            content: """
                <section class="panel" aria-labelledby="recordings-heading">
                <h1 id="recordings-heading">Recordings</h1>
                <p class="hint">Record from the Guide (a programme's Record button, or R on it), or add a rule \
                below.</p>
                <h2 id="now-heading">Recording now</h2>
                <ol id="recording-now" class="recordings" aria-labelledby="now-heading"></ol>
                <h2 id="upcoming-heading">Upcoming</h2>
                <ol id="recording-upcoming" class="recordings" aria-labelledby="upcoming-heading"></ol>
                <h2 id="done-heading">Done</h2>
                <ol id="recording-done" class="recordings" aria-labelledby="done-heading"></ol>
                <h2 id="failed-heading">Failed</h2>
                <ol id="recording-failed" class="recordings" aria-labelledby="failed-heading"></ol>
                <p id="recordings-status" class="status" role="status"></p>
                <h2 id="rules-heading">Rules</h2>
                <ul id="rules" class="rules" aria-labelledby="rules-heading"></ul>
                <form id="add-rule" class="stacked-form">
                <label for="rule-kind">Record</label>
                <select id="rule-kind" name="kind">
                <option value="series">every programme with a title (a series)</option>
                <option value="keyword">programmes whose title holds words</option>
                <option value="time">at a time on chosen days</option>
                <option value="catchup">channels for local catch-up (their time-shift kept for days)</option>
                </select>
                <label for="rule-text" id="rule-text-label">Title</label>
                <input id="rule-text" name="text" required>
                <label class="check series-only"><input id="rule-new" type="checkbox" name="newOnly"> \
                New episodes only</label>
                <div class="time-only">
                <label for="rule-time">Time (HH:MM)</label>
                <input id="rule-time" name="time" pattern="[0-2][0-9]:[0-5][0-9]" placeholder="20:00">
                <label for="rule-days">Days (1 Monday … 7 Sunday)</label>
                <input id="rule-days" name="days" value="1,2,3,4,5" inputmode="numeric">
                <label for="rule-minutes">Minutes</label>
                <input id="rule-minutes" name="minutes" type="number" min="1" max="1440" value="30">
                </div>
                <label for="rule-channels">Channel ids (empty: any channel; needed for a time)</label>
                <input id="rule-channels" name="channels" inputmode="numeric" placeholder="1,2">
                <label for="rule-padding">Padding after (minutes)</label>
                <input id="rule-padding" name="padding" type="number" min="0" max="360" value="0">
                <div class="recording-only">
                <label for="rule-keep">Keep at most (empty: all)</label>
                <input id="rule-keep" name="keep" type="number" min="1">
                </div>
                <div class="catchup-only" hidden>
                <label for="rule-keep-days">Days of catch-up to keep (1 to 30)</label>
                <input id="rule-keep-days" name="keepDays" type="number" min="1" max="30" value="3">
                </div>
                <button type="submit">Add rule</button>
                </form>
                </section>
                """)
    }

    /// Downloads: the queue with live progress (`downloads.js`), and a form to add a URL.
    static func downloads(url: String?) -> WebPage {
        WebPage(
            title: "Downloads", section: .downloads, module: "downloads.js", name: "downloads",
            content: """
                <section class="panel" aria-labelledby="downloads-heading">
                <h1 id="downloads-heading">Downloads</h1>
                <form id="add-download" class="inline-form">
                <label for="download-url">Download a URL</label>
                <input id="download-url" name="url" type="url" required placeholder="https://…" value="\(url)">
                <button type="submit">Add</button>
                </form>
                <div class="toolbar-buttons">
                <button type="button" data-all="pause-all">Pause all</button>
                <button type="button" data-all="resume-all">Resume all</button>
                <button type="button" data-all="purge">Clear finished</button>
                </div>
                <ol id="transfers" class="transfers" aria-label="Transfer queue"></ol>
                <p id="transfers-status" class="status" role="status"></p>
                </section>
                """)
    }

    /// Sources: the list with import progress (`sources.js`), and forms to add M3U, Xtream and XMLTV.
    static func sources() -> WebPage {
        WebPage(
            title: "Sources", section: .sources, module: "sources.js", name: "sources",
            content: """
                <section class="panel" aria-labelledby="sources-heading">
                <h1 id="sources-heading">Sources</h1>
                <ul id="sources" class="sources" aria-label="Sources"></ul>
                <p id="sources-status" class="status" role="status"></p>
                <h2>Add a source</h2>
                <form id="add-source" class="stacked-form">
                <label for="source-kind">Kind</label>
                <select id="source-kind" name="kind">
                <option value="m3u">M3U playlist</option>
                <option value="xtream">Xtream Codes account</option>
                <option value="xmltv">XMLTV guide</option>
                </select>
                <label for="source-location">URL (or the Xtream server)</label>
                <input id="source-location" name="location" required placeholder="https://…">
                <label for="source-name">Name (optional)</label>
                <input id="source-name" name="name">
                <div class="xtream-only">
                <label for="source-username">Username</label>
                <input id="source-username" name="username" autocomplete="off">
                <label for="source-password">Password</label>
                <input id="source-password" name="password" type="password" autocomplete="off">
                </div>
                <button type="submit">Add and import</button>
                </form>
                </section>
                """)
    }

    /// Streams: who watches what, live (`tables.js`, `streams` topic).
    static func streams() -> WebPage {
        WebPage(
            title: "Streams", section: .streams, module: "tables.js", name: "streams",
            content: """
                <section class="panel" aria-labelledby="streams-heading">
                <h1 id="streams-heading">Streams</h1>
                <p class="hint">Live channels being watched now, through Tuner.</p>
                <table class="data"><thead><tr><th>Channel</th><th>Source</th><th>Profile</th><th>Viewers</th>\
                <th>In</th><th>Out</th></tr></thead><tbody id="streams"></tbody></table>
                <p id="streams-status" class="status" role="status"></p>
                </section>
                """)
    }

    /// Outputs: the links players are given, to copy, and (for `admin`, who alone sees this
    /// version) the Xtream logins.
    static func outputs(_ profiles: [OutputProfileAnswer]) -> WebPage {
        let rows = profiles.map { profile -> HTML in
            let links: [(String, String)] = [
                ("M3U playlist", profile.playlistURL), ("XMLTV guide", profile.guideURL),
                ("HDHomeRun", profile.hdhomerunURL),
            ]
            let items = links.map { label, url -> HTML in
                """
                <li><span class="label">\(label)</span> <input class="copy-source" readonly value="\(url)" \
                aria-label="\(label) URL of \(profile.name)"> <button type="button" class="copy">Copy</button></li>
                """
            }
            return """
                <article class="card output">
                <h2>\(profile.name) <span class="muted">(\(profile.id), \(profile.channelCount) channels)</span></h2>
                <ul class="links">\(items)</ul>
                <p><a class="button" href="\(Route.lineup(profile: profile.id).webPath)">Edit the lineup</a></p>
                </article>
                """
        }
        return WebPage(
            title: "Outputs", section: .outputs, module: "logins.js", name: "outputs",
            content: """
                <section class="panel" aria-labelledby="outputs-heading">
                <h1 id="outputs-heading">Outputs</h1>
                <p class="hint">Give these links to Plex, Jellyfin, TiviMate or VLC.</p>
                \(rows)
                </section>
                \(loginsPanel(profiles.map { ($0.id, $0.name) }))
                """)
    }

    /// The Xtream logins (`logins.js` fills the table from `/api/v1/users` and `/api/v1/streams`):
    /// a form that adds one with a generated password, shown once, or changes one.
    static func loginsPanel(_ profiles: [(id: String, name: String)]) -> HTML {
        let profileBoxes = profiles.map { id, name -> HTML in
            """
            <label class="check"><input type="checkbox" name="profiles" value="\(id)"\
            \(id == "default" ? HTML(unsafe: " checked") : "")> \(name)</label>
            """
        }
        return """
            <section class="panel" aria-labelledby="logins-heading">
            <h2 id="logins-heading">Xtream logins</h2>
            <p class="hint">For TiviMate, IPTV Smarters and other Xtream Codes players: the server address \
            (shown with a new login), a username and a password. A disabled or expired login sees its account \
            and nothing else.</p>
            <table class="data" id="login-list"><thead><tr><th>Username</th><th>Profiles</th><th>Streams</th>\
            <th>Stream profile</th><th>Expires</th><th>Status</th><th>Watching now</th><th></th></tr></thead>
            <tbody></tbody></table>
            <p id="logins-status" class="status" role="status"></p>
            <form id="login-form" class="stacked-form">
            <h3 id="login-form-heading">Add a login</h3>
            <label for="login-name">Username</label>
            <input id="login-name" name="username" required maxlength="64" pattern="[A-Za-z0-9._\\-]{1,64}" \
            autocomplete="off" spellcheck="false">
            <fieldset><legend>Profiles</legend>\(profileBoxes)</fieldset>
            <label for="login-limit">Streams at once</label>
            <input id="login-limit" name="maxConnections" type="number" min="1" max="64" value="1" required>
            <label for="login-stream-profile">Stream profile</label>
            <select id="login-stream-profile" name="streamProfile">\
            <option value="direct">direct</option><option value="remux">remux</option>\
            <option value="transcode">transcode</option></select>
            <label for="login-expiry">Expires (empty: never)</label>
            <input id="login-expiry" name="expiry" type="date">
            <label class="check" id="login-new-password-label" hidden><input type="checkbox" id="login-new-password"> \
            Give it a new password</label>
            <p><button type="submit" id="login-submit">Add the login</button> \
            <button type="button" id="login-cancel" hidden>Cancel</button></p>
            </form>
            <div id="login-made" class="status" role="status" hidden>
            <p>Give the player these; the password is shown once.</p>
            <p><span class="label">Server</span> <input id="login-made-server" class="copy-source" readonly \
            aria-label="Server address"> <button type="button" class="copy">Copy</button></p>
            <p><span class="label">Username</span> <input id="login-made-name" class="copy-source" readonly \
            aria-label="Username"> <button type="button" class="copy">Copy</button></p>
            <p><span class="label">Password</span> <input id="login-made-password" class="copy-source" readonly \
            aria-label="Password"> <button type="button" class="copy">Copy</button></p>
            </div>
            </section>
            """
    }

    /// Outputs for a browser whose scope may not see the profiles' keys: their names only (a
    /// keyed link plays the profile, so it is shown where the API shows it).
    static func outputs(names: [(id: String, name: String)]) -> WebPage {
        let rows = names.map { id, name -> HTML in
            "<article class=\"card output\"><h2>\(name) <span class=\"muted\">(\(id))</span></h2></article>"
        }
        return WebPage(
            title: "Outputs", section: .outputs, module: "tables.js", name: "outputs",
            content: """
                <section class="panel" aria-labelledby="outputs-heading">
                <h1 id="outputs-heading">Outputs</h1>
                <p class="hint">The playlist, guide and HDHomeRun links carry the profiles' keys: sign in with \
                the access token or an admin key to see them.</p>
                \(rows)
                </section>
                """)
    }

    /// Cache: size and hit ratio, refreshed on `cache` events (`tables.js`).
    static func cache(_ statistics: CacheAdmin.Statistics) -> WebPage {
        let cache = statistics.cache
        let served = cache.hitBytes + cache.missBytes
        let ratio = served > 0 ? Double(cache.hitBytes) / Double(served) : 0
        let fill = cache.capacity > 0 ? Double(cache.bytes) / Double(cache.capacity) : 0
        return WebPage(
            title: "Cache", section: .cache, module: "cache.js", name: "cache",
            content: """
                <section class="panel" aria-labelledby="cache-heading">
                <h1 id="cache-heading">Cache</h1>
                <dl class="figures" id="cache-figures">
                <div><dt>Held</dt><dd id="cache-bytes">\(bytes(cache.bytes)) of \(bytes(cache.capacity))</dd></div>
                <div><dt>Resources</dt><dd id="cache-entries">\(cache.entries)</dd></div>
                <div><dt>Hit ratio</dt><dd id="cache-ratio">\(percent(ratio))</dd></div>
                <div><dt>Served from cache</dt><dd id="cache-hits">\(bytes(cache.hitBytes))</dd></div>
                <div><dt>Fetched for players</dt><dd id="cache-misses">\(bytes(cache.missBytes))</dd></div>
                <div><dt>Fetches running</dt><dd id="cache-fetches">\(cache.activeFetches)</dd></div>
                </dl>
                <label for="cache-fill">Full</label>
                <progress id="cache-fill" max="1" value="\(String(format: "%.4f", fill))"></progress>
                <h2>Hit ratio over the last day</h2>
                <div id="cache-chart" class="chart-box"></div>
                <h2>Pinned</h2>
                <p class="hint">Pinned resources are never evicted.</p>
                <ul id="cache-pins" class="plain-list"></ul>
                <form id="pin-form" class="inline-form">
                <label for="pin-url">Pin a URL</label>
                <input id="pin-url" name="url" type="url" required placeholder="https://…" spellcheck="false">
                <button type="submit">Pin</button>
                </form>
                <h2>Preloads</h2>
                <ul id="cache-preloads" class="plain-list"></ul>
                <form id="preload-form" class="inline-form">
                <label for="preload-url">Preload a URL</label>
                <input id="preload-url" name="url" type="url" required placeholder="https://…" spellcheck="false">
                <label for="preload-seconds">HLS seconds</label>
                <input id="preload-seconds" name="seconds" type="number" min="0" max="86400" placeholder="all">
                <button type="submit">Preload</button>
                </form>
                <p id="cache-status" class="status" role="status"></p>
                </section>
                """)
    }

    /// Sign-in: the access token or an API key, exchanged for a session cookie (`signin.js`).
    /// `next` is where to go after signing in, already checked (``SignInNext``).
    static func signIn(next: String) -> WebPage {
        WebPage(
            title: "Sign in", section: nil, module: "signin.js", name: "sign-in",
            content: """
                <section class="panel narrow" aria-labelledby="signin-heading">
                <h1 id="signin-heading">Sign in to Tuner</h1>
                <form id="signin" class="stack" autocomplete="on" data-next="\(next)">
                <label for="signin-key">Access token or API key</label>
                <input id="signin-key" name="key" type="password" required autofocus autocomplete="current-password" \
                spellcheck="false" maxlength="512">
                <button type="submit">Sign in</button>
                </form>
                <p id="signin-status" class="hint" role="alert"></p>
                <p class="hint">The owner's token is in the data folder's <code>token</code> file; make a key \
                for this screen with <code>tuner keys add NAME --scope read</code> (or play, manage, admin).</p>
                </section>
                """,
            showsNavigation: false)
    }

    /// Settings: the configuration in force, read-only. Secrets (the access token, the database's
    /// address and password) are not shown; `database` names the engine that keeps the state, and
    /// `port` is the one the server listens on (the configuration may say 0: any free port).
    static func settings(
        _ configuration: TunerConfiguration, database: String, port: Int?, keys: [APIKeyAnswer]?,
        backups: BackupListAnswer?, backupFolder: String
    ) -> WebPage {
        let rows: [(String, String)] = [
            ("Listening on", "\(configuration.host):\(port ?? configuration.port)"),
            ("Data folder", configuration.dataDirectory),
            ("State database", database),
            ("Cache size", bytes(configuration.cacheSize)),
            ("Cache minimum free disk", bytes(configuration.cacheMinimumFreeDisk)),
            ("Public host names", configuration.publicHosts.joined(separator: ", ")),
            ("Allowed origins", configuration.allowedOrigins.joined(separator: ", ")),
            ("Fetches allowed to", "\(configuration.fetchPolicy)"),
            ("Transfers at once", "\(configuration.transfersMaximumActive)"),
            ("Transfers per host", "\(configuration.transfersMaximumPerHost)"),
            ("Largest upload", bytes(configuration.uploadMaxSize)),
            ("Catalog refresh check (s)", "\(configuration.catalogRefreshCheckSeconds)"),
            ("Guide placeholders", configuration.guidePlaceholders ? "on" : "off"),
            ("Access token", configuration.isLoopbackOnly ? "not needed (loopback only)" : "required (not shown)"),
        ]
        let items = rows.map { name, value -> HTML in "<div><dt>\(name)</dt><dd>\(value)</dd></div>" }
        return WebPage(
            title: "Settings", section: .settings, module: "account.js", name: "settings",
            content: """
                <section class="panel" aria-labelledby="settings-heading">
                <h1 id="settings-heading">Settings</h1>
                <p class="hint">Set with flags, TUNER_* variables or tuner.json; see docs/guide/configuration.md.</p>
                <dl class="settings">\(items)</dl>
                <p><button type="button" data-sign-out>Sign out</button></p>
                </section>
                \(keys.map { keysPanel($0) } ?? "")
                \(backups.map { backupsPanel($0, folder: backupFolder) } ?? "")
                """)
    }

    /// Settings' API keys, for `admin` only: each key's name, scope, hint and use, a revoke
    /// button, and a form that makes one; the new key's secret is shown once (`account.js`).
    static func keysPanel(_ keys: [APIKeyAnswer]) -> HTML {
        let rows = keys.map { key -> HTML in
            let created = ISO8601DateFormatter().string(from: key.createdAt)
            let used = key.lastUsedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
            return """
                <tr data-key-id="\(String(key.id))"><td>\(key.name)</td><td>\(key.scope)</td>\
                <td><code>\(key.hint)</code></td><td><time>\(created)</time></td><td>\(used)</td>\
                <td><button type="button" class="revoke-key" aria-label="Revoke \(key.name)">Revoke</button></td></tr>
                """
        }
        let scopes = ["read", "play", "manage", "admin"].map { scope -> HTML in
            "<option value=\"\(scope)\">\(scope)</option>"
        }
        return """
            <section class="panel" aria-labelledby="keys-heading">
            <h2 id="keys-heading">API keys</h2>
            <p class="hint">A key signs a browser or a program in with its scope: read looks, play also \
            plays, manage also changes things, admin also holds keys, logins and backups. Its secret is \
            shown once, when it is made.</p>
            <form id="key-form" class="inline-form">
            <label for="key-name">Name</label>
            <input id="key-name" name="name" required maxlength="64" placeholder="living-room TV">
            <label for="key-scope">Scope</label>
            <select id="key-scope" name="scope">\(scopes)</select>
            <button type="submit">Make a key</button>
            </form>
            <p id="key-secret" class="status" role="status" hidden>New key, shown once: \
            <input id="key-secret-value" class="copy-source" readonly aria-label="The new key's secret"> \
            <button type="button" class="copy">Copy</button></p>
            <p id="keys-status" class="status" role="status"></p>
            <table class="data" id="key-list"><thead><tr><th>Name</th><th>Scope</th><th>Key</th><th>Made</th>\
            <th>Last used</th><th></th></tr></thead>
            <tbody>\(rows)</tbody></table>
            </section>
            """
    }

    /// Settings' backups, for `admin` only: the files in the backup folder and a button that
    /// writes one now (`account.js`). The files stay on the server: they hold every secret.
    static func backupsPanel(_ list: BackupListAnswer, folder: String) -> HTML {
        let schedule =
            list.everySeconds.map { "Every \(spoken(seconds: $0)), keeping the newest \(list.keep)." }
            ?? "None scheduled (tuner serve --backup-every 1d --backup-keep 7)."
        let rows = list.backups.map { backup -> HTML in
            let time = ISO8601DateFormatter().string(from: backup.createdAt)
            return "<tr><td>\(backup.name)</td><td>\(bytes(backup.size))</td><td><time>\(time)</time></td></tr>"
        }
        return """
            <section class="panel" aria-labelledby="backups-heading">
            <h2 id="backups-heading">Backups</h2>
            <p class="hint">One file holds the whole state: sources, channels, guide, favourites, profiles, logins, \
            keys, transfers, the token and the settings (not the cache, downloads or recordings). Backups stay in \
            <code>\(folder)</code> on the server: they hold the token and the providers' passwords, so copy them off \
            with care. Restore one with <code>tuner restore FILE</code> while the server is stopped.</p>
            <p class="hint" id="backup-schedule">Scheduled backups: \(schedule)</p>
            <p><button type="button" id="backup-now">Back up now</button></p>
            <p id="backup-status" class="status" role="status"></p>
            <table class="data" id="backup-list"><thead><tr><th>File</th><th>Size</th><th>Made</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            </section>
            """
    }

    /// `1 d`, `12 h`, `30 min` or `45 s`: the largest unit that divides the period.
    static func spoken(seconds: Double) -> String {
        let whole = Int64(seconds.rounded())
        for (unit, name) in [(Int64(86_400), "d"), (3_600, "h"), (60, "min")] where whole >= unit && whole % unit == 0 {
            return "\(whole / unit) \(name)"
        }
        return "\(whole) s"
    }

    /// `1.5 GB`-style sizes.
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .binary)
    }

    static func percent(_ ratio: Double) -> String {
        String(format: "%.1f %%", ratio * 100)
    }
}
