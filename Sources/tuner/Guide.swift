import ArgumentParser
import Catalog
import Foundation

/// `tuner guide CHANNEL`: what is on a channel now, next, and in the hours after.
struct Guide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a channel's guide: now, next and the next hours.")
    @OptionGroup var dataOptions: DataOptions
    @Argument(help: "A channel id, or words of its name.") var channel: String
    @Option(help: "How many hours ahead to list.") var hours = 6.0
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        guard hours > 0 else { throw ValidationError("--hours must be positive") }
        try await LocalCatalog.with(dataOptions) { catalog in
            let item = try await Self.resolve(channel, in: catalog.store)
            let now = Int64(Date().timeIntervalSince1970)
            let nowNext = try await catalog.store.nowNext(itemIDs: [item.id], at: now).first
            let upcoming =
                try await catalog.store.guide(itemIDs: [item.id], from: now, to: now + Int64(hours * 3600))[item.id]
                ?? []
            if json {
                struct Output: Encodable {
                    var item: CatalogItem
                    var now: GuideProgramme?
                    var next: GuideProgramme?
                    var programmes: [GuideProgramme]
                }
                print(try jsonText(Output(item: item, now: nowNext?.now, next: nowNext?.next, programmes: upcoming)))
                return
            }
            print("\(item.id)\t\(item.name)")
            guard nowNext != nil || !upcoming.isEmpty else {
                print(
                    """
                    no guide for this channel (no guide channel matches its tvg-id or name; map one with PUT \
                    /api/v1/channels/\(item.id)/guide-mapping)
                    """
                )
                return
            }
            if let current = nowNext?.now { print("now\t\(Self.line(current))") }
            if let next = nowNext?.next { print("next\t\(Self.line(next))") }
            for programme in upcoming where programme.id != nowNext?.now?.id && programme.id != nowNext?.next?.id {
                print("\t\(Self.line(programme))")
            }
        }
    }

    static func resolve(_ channel: String, in store: any CatalogStore) async throws -> CatalogItem {
        if let id = Int64(channel) {
            guard let item = try await store.item(id: id) else { throw ValidationError("no channel with id \(id)") }
            return item
        }
        guard let item = try await store.items(CatalogItemQuery(kind: .live, search: channel, limit: 1)).items.first
        else {
            throw ValidationError("no channel matches '\(channel)'; list them with `tuner channels --search`")
        }
        return item
    }

    static func line(_ programme: GuideProgramme) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "EEE HH:mm"
        let start = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(programme.start)))
        let stop = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(programme.stop)))
        var text = "\(start)–\(stop.suffix(5))\t\(programme.title)"
        if let subtitle = programme.subtitle { text += " — \(subtitle)" }
        return text
    }
}
