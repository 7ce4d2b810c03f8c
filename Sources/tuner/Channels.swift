import ArgumentParser
import Catalog
import Foundation

/// `tuner channels`: lists or searches the catalog.
struct Channels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List or search channels (and movies and series with --kind).")
    @OptionGroup var dataOptions: DataOptions
    @Option(help: "Words to search for (prefixes, accents ignored).") var search: String?
    @Option(help: "Only this group.") var group: String?
    @Option(help: "live, movie or series (default live).") var kind = "live"
    @Flag(help: "Only favourites.") var favourites = false
    @Option(help: "How many to skip.") var offset = 0
    @Option(help: "How many to show.") var limit = 50
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let query = CatalogItemQuery(
            kind: CatalogItemKind(rawValue: kind), group: group, favouritesOnly: favourites, search: search, offset: offset, limit: limit)
        try await LocalCatalog.with(dataOptions) { catalog in
            let page = try await catalog.store.items(query)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(page), as: UTF8.self))
                return
            }
            for item in page.items {
                print("\(item.id)\t\(item.isFavourite ? "★" : " ")\t\(item.name)\t\(item.group ?? "")")
            }
            print("\(page.offset + 1)–\(page.offset + page.items.count) of \(page.total)")
        }
    }
}
