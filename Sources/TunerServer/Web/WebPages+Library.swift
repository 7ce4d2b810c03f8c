import Catalog
import Routing
import TunerAPI

extension WebPages {
    /// Films or Series: a poster grid of any length (`library.js` draws only the rows in view),
    /// filtered by group and searched as you type.
    static func library(kind: CatalogItemKind, groups: [GroupEntry]) -> WebPage {
        let films = kind == .movie
        let noun = films ? "Films" : "Series"
        let options = groups.map { entry -> HTML in
            "<option value=\"\(entry.name)\">\(entry.name) (\(entry.count))</option>"
        }
        return WebPage(
            title: noun, section: films ? .films : .shows, module: "library.js", name: films ? "films" : "shows",
            content: """
                <section class="library" aria-labelledby="library-heading">
                <div class="toolbar">
                <h1 id="library-heading">\(noun)</h1>
                <select id="library-group" aria-label="Group"><option value="">All groups</option>\(options)</select>
                <input type="search" id="library-search" placeholder="Search \(noun.lowercased())" \
                aria-label="Search \(noun.lowercased())" autocomplete="off">
                </div>
                <p class="hint">Arrows move, Enter opens, Escape comes back here.</p>
                <div id="library-grid" class="vgrid" role="list" aria-label="\(noun)" \
                data-kind="\(kind.rawValue)" data-base="\(films ? Route.films.webPath : Route.shows.webPath)"></div>
                <p id="library-status" class="status" role="status"></p>
                </section>
                """)
    }

    /// One film or series: its poster (through Tuner), details from the provider (`details.js`
    /// fills plot, year, rating and duration where the catalog has them), Play, Resume and
    /// Download; a series' seasons and episodes.
    static func title(item: CatalogItem) -> WebPage {
        let films = item.kind == .movie
        let list: Route = films ? .films : .shows
        let poster: HTML =
            item.logo == nil
            ? "<div class=\"poster placeholder\" aria-hidden=\"true\">\(String(item.name.prefix(1)))</div>"
            : "<img class=\"poster\" src=\"\(APIEndpoint.channelLogo(id: item.id).path)\" alt=\"\">"
        let group: HTML = item.group.map { "<span class=\"group\">\($0)</span>" } ?? ""
        let actions: HTML =
            films
            ? """
            <div class="actions" id="title-actions">
            <a class="button primary" id="play" href="\(Route.play(channel: item.id, at: nil).webPath)">▶ Play</a>
            <a class="button" id="resume" href="\(Route.play(channel: item.id, at: nil).webPath)#resume" hidden>\
            Resume</a>
            <button type="button" id="download">Download</button>
            </div>
            <div id="download-progress" class="download-progress" hidden><progress max="1" value="0" \
            aria-label="Download"></progress> <span class="words"></span></div>
            """
            : """
            <div id="seasons" class="seasons" role="group" aria-label="Seasons"></div>
            <ol id="episodes" class="episodes" aria-label="Episodes"></ol>
            """
        return WebPage(
            title: item.name, section: list, module: "details.js", name: films ? "film" : "show",
            content: """
                <section class="title-page" id="title" data-id="\(item.id)" data-kind="\(item.kind.rawValue)" \
                data-back="\(list.webPath)">
                <div class="title-head">
                \(poster)
                <div class="about">
                <p class="crumbs"><a href="\(list.webPath)" id="back">\(films ? "Films" : "Series")</a> \(group)</p>
                <h1 id="title-name">\(item.name)</h1>
                <p class="facts" id="facts"></p>
                <p class="plot" id="plot"></p>
                \(actions)
                <p id="title-status" class="status" role="status"></p>
                </div>
                </div>
                </section>
                """)
    }
}
