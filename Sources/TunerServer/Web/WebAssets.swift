import Crypto
import Foundation

/// One file of the web app (a style sheet or an ES module), compiled into the binary.
struct WebAsset: Sendable {
    /// The name in the sources, like `tv.js`.
    let name: String
    /// The name it is served under: `tv.<hash>.js`, the hash of its content, so a new build never
    /// meets an old copy in a browser's cache.
    let servedName: String
    let contentType: String
    let bytes: [UInt8]
    /// A strong validator: the content's SHA-256, quoted.
    let etag: String

    /// The URL pages use.
    var url: String { "/assets/" + servedName }
}

/// The web app's assets, read from the compiled-in resources once. Nothing is read from disk.
///
/// Modules import each other by their source names (`import … from './events.js'`); those
/// specifiers are rewritten to the served (hashed) names, leaves first, so a module's hash covers
/// the modules it loads and every URL can be cached for ever (`immutable`).
enum WebAssets {
    /// The sources, as SwiftPM embeds them.
    static let sources: [(name: String, bytes: [UInt8])] = [
        ("app.css", PackageResources.app_css),
        ("app.js", PackageResources.app_js),
        ("events.js", PackageResources.events_js),
        ("command.js", PackageResources.command_js),
        ("paged.js", PackageResources.paged_js),
        ("vlist.js", PackageResources.vlist_js),
        ("tv.js", PackageResources.tv_js),
        ("player.js", PackageResources.player_js),
        ("guide.js", PackageResources.guide_js),
        ("downloads.js", PackageResources.downloads_js),
        ("sources.js", PackageResources.sources_js),
        ("tables.js", PackageResources.tables_js),
        ("logins.js", PackageResources.logins_js),
        ("lineup.js", PackageResources.lineup_js),
        ("signin.js", PackageResources.signin_js),
        ("account.js", PackageResources.account_js),
        ("cache.js", PackageResources.cache_js),
        ("vgrid.js", PackageResources.vgrid_js),
        ("resume.js", PackageResources.resume_js),
        ("library.js", PackageResources.library_js),
        ("details.js", PackageResources.details_js),
        ("vod.js", PackageResources.vod_js),
        ("tus.js", PackageResources.tus_js),
        ("uploads.js", PackageResources.uploads_js),
        ("recordings.js", PackageResources.recordings_js),
        // Not a file: rendered from the endpoint table.
        (APIPathsModule.name, Array(APIPathsModule.text.utf8)),
    ]

    /// Every asset by its served name.
    static let byServedName: [String: WebAsset] = {
        Dictionary(uniqueKeysWithValues: built.values.map { ($0.servedName, $0) })
    }()

    /// Every asset by its source name.
    static let built: [String: WebAsset] = build(sources)

    /// The URL of the asset named `name` in the sources. Every page names only assets that exist,
    /// which `WebAppTests` checks.
    static func url(_ name: String) -> String {
        built[name]?.url ?? "/assets/missing-" + name
    }

    static func build(_ sources: [(name: String, bytes: [UInt8])]) -> [String: WebAsset] {
        var texts = Dictionary(
            uniqueKeysWithValues: sources.map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) })
        var done: [String: WebAsset] = [:]
        // Leaves first: a module is finished once every module it imports is.
        while done.count < texts.count {
            var progressed = false
            for (name, text) in texts.sorted(by: { $0.key < $1.key }) where done[name] == nil {
                let imports = importedNames(text)
                guard imports.allSatisfy({ done[$0] != nil || texts[$0] == nil }) else { continue }
                var rewritten = text
                for imported in imports {
                    guard let asset = done[imported] else { continue }
                    rewritten = rewritten.replacingOccurrences(of: "'./\(imported)'", with: "'./\(asset.servedName)'")
                }
                texts[name] = rewritten
                done[name] = asset(name: name, bytes: Array(rewritten.utf8))
                progressed = true
            }
            // An import cycle: serve the rest as they are rather than loop.
            if !progressed {
                for (name, text) in texts where done[name] == nil {
                    done[name] = asset(name: name, bytes: Array(text.utf8))
                }
            }
        }
        return done
    }

    /// The modules `text` imports from its own folder (`from './x.js'`, `import './x.js'`).
    static func importedNames(_ text: String) -> [String] {
        var names: [String] = []
        // `import { x } from './a.js'` and the side-effect form `import './a.js'`.
        for marker in ["from './", "import './"] {
            var rest = text[...]
            while let range = rest.range(of: marker) {
                let after = rest[range.upperBound...]
                guard let end = after.firstIndex(of: "'") else { break }
                names.append(String(after[..<end]))
                rest = after[end...]
            }
        }
        return names
    }

    static func asset(name: String, bytes: [UInt8]) -> WebAsset {
        let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        let servedName = name[..<dot] + "." + digest.prefix(16) + name[dot...]
        let type: String
        switch name[dot...] {
        case ".css": type = "text/css; charset=utf-8"
        case ".js": type = "text/javascript; charset=utf-8"
        default: type = "application/octet-stream"
        }
        return WebAsset(
            name: name, servedName: String(servedName), contentType: type, bytes: bytes, etag: "\"\(digest)\"")
    }
}
