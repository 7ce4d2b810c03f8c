/// Receives the items of one import; only valid inside ``CatalogStore/replaceItems(ofSource:produce:)``.
public protocol CatalogImportSink: AnyObject {
    /// Adds a channel, movie or series. Duplicated identities are told apart by order of appearance.
    func add(_ item: CatalogItemDraft) throws
    /// Adds an episode of `series`, creating the series item the first time it is seen.
    func add(_ episode: CatalogEpisodeDraft, of series: CatalogItemDraft) throws
    /// How many items and episodes were added so far.
    var counts: CatalogImportCounts { get }
}
