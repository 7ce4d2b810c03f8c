import Routing

/// One page of the web app: its title, which section of the navigation it belongs to, the module
/// that brings it to life, and its content. ``html`` wraps it in the shared layout.
struct WebPage: Sendable {
    /// A navigation section: its label and the route it opens.
    struct Section: Sendable, Equatable {
        let label: String
        let route: Route

        static let all: [Section] = [
            Section(label: "Live TV", route: .liveTV(group: nil)),
            Section(label: "Guide", route: .guide(at: nil)),
            Section(label: "Recordings", route: .recordings),
            Section(label: "Films", route: .films),
            Section(label: "Series", route: .shows),
            Section(label: "Downloads", route: .downloads),
            Section(label: "Uploads", route: .uploads),
            Section(label: "Sources", route: .sources),
            Section(label: "Outputs", route: .outputs),
            Section(label: "Streams", route: .streams),
            Section(label: "Cache", route: .cache),
            Section(label: "Settings", route: .settings),
        ]
    }

    var title: String
    /// The section highlighted in the navigation, if any.
    var section: Route?
    /// The page's ES module (a name in ``WebAssets``); every page also loads `app.js`.
    var module: String = "app.js"
    /// A short name for the page, on `<body data-page>`, that scripts and tests read.
    var name: String
    var content: HTML
    /// False on the sign-in page: without a session the sections and the live connection would
    /// only send the browser back to it.
    var showsNavigation = true

    /// The whole document.
    var html: HTML {
        let links = Section.all.map { section -> HTML in
            let current: HTML = section.route == self.section ? #" aria-current="page""# : ""
            return "<li><a href=\"\(section.route.webPath)\"\(current)>\(section.label)</a></li>"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="dark">
            <title>\(title) · Tuner</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="\(WebAssets.url("app.css"))">
            <script type="module" src="\(WebAssets.url(module))"></script>
            </head>
            <body data-page="\(name)">
            <a class="skip" href="#main">Skip to content</a>
            <header class="top">
            <a class="brand" href="/">Tuner</a>
            \(showsNavigation ? navigation(links) : "")
            </header>
            <main id="main" tabindex="-1">
            \(content)
            </main>
            </body>
            </html>

            """
    }

    /// The sections and the live connection's indicator.
    private func navigation(_ links: [HTML]) -> HTML {
        """
        <nav aria-label="Sections"><ul>\(links)</ul></nav>
        <span id="connection" class="connection" role="status" data-state="offline" \
        title="Live updates: not connected"><span class="dot" aria-hidden="true"></span>\
        <span class="label">offline</span></span>
        """
    }

    /// The page for a path no route knows.
    static func notFound(path: String) -> WebPage {
        WebPage(
            title: "Not found", section: nil, name: "not-found",
            content: """
                <section class="panel narrow">
                <h1>Nothing here</h1>
                <p>Tuner has no page at <code>\(path)</code>.</p>
                <p><a class="button" href="/">Go to Live TV</a></p>
                </section>
                """)
    }
}
