import ArgumentParser
import Catalog
import Foundation
import MediaFormats
import Routing
import Streaming
import TunerApp

/// `tuner open LINK`: performs what a `tuner://` deep link (or a web app URL) means: prints a
/// play link, shows a channel or source, queues a download.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a tuner:// link (or a web app URL): play, show or download what it names.",
        discussion: """
            tuner://channel/ID/play          prints a proxy URL that plays the channel (give it to any player)
            tuner://channel/ID/play?at=T     the same for the programme at T (seconds since 1970), by catch-up
            tuner://channel/ID               shows the channel
            tuner://source/ID, tuner://sources   shows a source, lists the sources
            tuner://downloads/new?url=URL    queues a download (on the running server, else in the data folder)
            """)

    @Argument(help: "The link, like tuner://channel/42/play.") var link: String
    @OptionGroup var dataOptions: DataOptions
    @Option(
        help:
            """
            Base URL of the server play links point at (default: the running server's, else \
            http://127.0.0.1:$TUNER_PORT or 8080).
            """
    )
    var base: String?

    func run() async throws {
        guard let url = URL(string: link) else { throw ValidationError("'\(link)' is not a link") }
        let route = Route(url: url)
        switch route {
        case .play(let id, let at):
            try await withPlayer { player, baseURL in
                if let at {
                    print(try await player.catchup(itemID: id, target: .at(at), baseURL: baseURL).proxyURL)
                } else {
                    print(try await player.play(itemID: id, baseURL: baseURL).proxyURL)
                }
            }
        case .channel(let id), .film(let id), .show(let id):
            try await LocalCatalog.with(dataOptions) { catalog in
                guard let item = try await catalog.store.item(id: id) else {
                    throw ValidationError("no channel with id \(id)")
                }
                var lines = ["\(item.id)\t\(item.kind)\t\(item.name)", "group: \(item.group ?? "-")"]
                if let url = item.url { lines.append("stream: \(SecretRedactor.redactURL(url))") }
                if item.catchup != nil { lines.append("catch-up: yes") }
                lines.append("play: tuner open \(Route.play(channel: item.id, at: nil).deepLink.absoluteString)")
                print(lines.joined(separator: "\n"))
            }
        case .source(let id):
            try await LocalCatalog.with(dataOptions) { catalog in
                guard let source = try await catalog.store.sources().first(where: { $0.id == id }) else {
                    throw ValidationError("no source with id \(id)")
                }
                print(Sources.List.line(source))
            }
        case .sources:
            try await LocalCatalog.with(dataOptions) { catalog in
                for source in try await catalog.store.sources() { print(Sources.List.line(source)) }
            }
        case .download(let url):
            let command = try Download.parse([url.absoluteString] + (dataOptions.data.map { ["--data", $0] } ?? []))
            try await command.run()
        case .notFound:
            throw ValidationError("Tuner does not know the link '\(link)'; try tuner://channel/ID/play")
        default:
            throw ValidationError("'\(link)' names a page of the web app; the terminal cannot show it")
        }
    }

    /// A player on the data folder, and the base URL its links point at.
    private func withPlayer(_ body: (Player, String) async throws -> Void) async throws {
        let folder = try DataFolder(path: try await dataOptions.resolvedDataDirectory())
        let baseURL =
            base ?? runningServerAddress(folder)
            ?? "http://127.0.0.1:\(ProcessInfo.processInfo.environment["TUNER_PORT"] ?? "8080")"
        try await LocalCatalog.with(dataOptions) { catalog in
            let player = Player(catalog: catalog.store, signer: StreamLinkSigner(key: try folder.loadOrCreateSecret()))
            do {
                try await body(player, baseURL)
            } catch let error as FeatureError {
                throw ValidationError(error.description)
            }
        }
    }

    private func runningServerAddress(_ folder: DataFolder) -> String? {
        (try? String(contentsOfFile: folder.serverAddressPath, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}
