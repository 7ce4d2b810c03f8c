extension WebPages {
    /// The lineup editor of one profile (`lineup.js` draws the list, only the rows in view, and
    /// sends every change through `POST /api/v1/outputs/{id}/lineup`): filters, a selection with
    /// its actions, and a panel for one channel (name, group, logo, number, alternatives, guide).
    static func lineup(
        profileID: String, profileName: String, pickedOnly: Bool, sources: [(id: Int64, name: String)],
        groups: [GroupEntry]
    ) -> WebPage {
        let sourceOptions = sources.map { id, name -> HTML in "<option value=\"\(String(id))\">\(name)</option>" }
        let groupOptions = groups.map { group -> HTML in "<option value=\"\(group.name)\"></option>" }
        return WebPage(
            title: "Lineup of \(profileName)", section: .outputs, module: "lineup.js", name: "lineup",
            content: """
                <section class="panel lineup" aria-labelledby="lineup-heading">
                <h1 id="lineup-heading">Lineup of \(profileName) <span class="muted">(\(profileID))</span></h1>
                <p class="hint">Pick channels from every source, number, name and order them. Players of this \
                profile (M3U, XMLTV, HDHomeRun, Xtream) see exactly the lineup. Select with a click, Space or \
                Shift for a range; Enter opens a channel; drag a numbered row, or Alt+↑/↓, to move it. \
                <a href="/outputs">Back to Outputs</a></p>
                <p><label class="check"><input type="checkbox" id="lineup-picked"\
                \(pickedOnly ? HTML(unsafe: " checked") : "")> Only the channels added here \
                (otherwise every live channel the profile's rules select)</label></p>
                <form id="lineup-filter" class="filters" role="search" aria-label="Filter the channels">
                <label>Show <select id="lineup-show"><option value="all">All channels</option>\
                <option value="lineup">In the lineup</option><option value="other">Not in the lineup</option>\
                </select></label>
                <label>Source <select id="lineup-source"><option value="">All sources</option>\(sourceOptions)\
                </select></label>
                <label>Group <input id="lineup-group" list="lineup-groups" autocomplete="off"></label>
                <datalist id="lineup-groups">\(groupOptions)</datalist>
                <label>Search <input id="lineup-search" type="search" autocomplete="off" spellcheck="false"></label>
                <label>Guide <select id="lineup-guide"><option value="any">Any</option>\
                <option value="has">Has a guide</option><option value="none">No guide</option></select></label>
                </form>
                <div class="toolbar" role="toolbar" aria-label="The selected channels">
                <span id="lineup-selected" aria-live="polite">None selected</span>
                <button type="button" id="lineup-select-all">Select all</button>
                <button type="button" id="lineup-clear">Clear</button>
                <button type="button" id="lineup-add">Add</button>
                <button type="button" id="lineup-remove">Remove</button>
                <label>From <input id="lineup-from" type="number" min="1" max="999999" value="1"></label>
                <button type="button" id="lineup-renumber">Renumber</button>
                <button type="button" id="lineup-disable">Disable</button>
                <button type="button" id="lineup-enable">Enable</button>
                <button type="button" id="lineup-guides">Accept best guides</button>
                </div>
                <p id="lineup-status" class="status" role="status"></p>
                <div id="lineup-list" class="vlist lineup-list" role="listbox" aria-multiselectable="true" \
                aria-label="Channels" data-profile="\(profileID)"></div>
                </section>
                <section class="panel" id="lineup-channel" aria-labelledby="lineup-channel-heading" hidden>
                <h2 id="lineup-channel-heading">Channel</h2>
                <form id="lineup-edit" class="stacked-form">
                <label for="edit-name">Name (empty: the playlist's)</label>
                <input id="edit-name" maxlength="200" autocomplete="off">
                <label for="edit-group">Group (empty: the playlist's)</label>
                <input id="edit-group" maxlength="200" list="lineup-groups" autocomplete="off">
                <label for="edit-logo">Logo address (empty: the playlist's)</label>
                <input id="edit-logo" maxlength="2000" autocomplete="off" spellcheck="false">
                <label for="edit-logo-file">Or upload a logo (PNG, JPEG, GIF or WebP, up to 1 MiB)</label>
                <input id="edit-logo-file" type="file" accept="image/png,image/jpeg,image/gif,image/webp">
                <label for="edit-number">Number</label>
                <input id="edit-number" type="number" min="1" max="999999">
                <p><button type="submit" id="edit-save">Save</button> \
                <button type="button" id="edit-close">Close</button></p>
                </form>
                <h3 id="edit-alternatives-heading">Alternatives (tried in this order when it fails)</h3>
                <ol id="edit-alternatives" class="alternatives" aria-labelledby="edit-alternatives-heading"></ol>
                <p><button type="button" id="edit-alternatives-save">Save the order</button> \
                <button type="button" id="edit-alternatives-auto">Back to automatic</button></p>
                <h3 id="edit-guide-heading">Guide</h3>
                <p id="edit-guide" class="hint"></p>
                <ol id="edit-suggestions" class="suggestions" aria-labelledby="edit-guide-heading"></ol>
                </section>
                """)
    }

    /// The lineup editor for a browser without `admin`: what it is, and who may use it.
    static func lineupNeedsAdmin(profileID: String) -> WebPage {
        WebPage(
            title: "Lineup", section: .outputs, module: "tables.js", name: "lineup",
            content: """
                <section class="panel" aria-labelledby="lineup-heading">
                <h1 id="lineup-heading">Lineup of \(profileID)</h1>
                <p class="hint">Editing a lineup needs the access token or an admin key: sign in with one.</p>
                </section>
                """)
    }
}
