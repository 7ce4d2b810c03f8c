import Catalog
import Synchronization

/// Browsing what the catalog holds, for the API and the web app: channels, films and series with
/// their episodes, groups, favourites (and their order), and the guide with its manual mappings.
///
/// A feature object between the HTTP layer and the catalog store, so no controller touches the
/// store: each call answers or throws a ``FeatureError`` whose kind the front end maps (an unknown
/// id is `notFound`, what does not apply `conflict`, anything else of the store `failed`).
public final class Browse: Sendable {
    let catalog: any CatalogStore
    /// The matcher of the guide channels it was built from: built again only when they change.
    let guideMatcher = Mutex<(channels: [GuideMatcher.Channel], matcher: GuideMatcher)?>(nil)

    init(catalog: any CatalogStore) {
        self.catalog = catalog
    }

    // MARK: Items

    /// A page of items as `query` asks (kind, group, source, search, favourites, order).
    public func items(_ query: CatalogItemQuery) async throws(FeatureError) -> CatalogPage<CatalogItem> {
        try await mapped { try await catalog.items(query) }
    }

    /// The item with `id`, or nil when there is none.
    public func item(id: Int64) async throws(FeatureError) -> CatalogItem? {
        try await mapped { try await catalog.item(id: id) }
    }

    /// The episode with `id`, or nil when there is none.
    public func episode(id: Int64) async throws(FeatureError) -> CatalogEpisode? {
        try await mapped { try await catalog.episode(id: id) }
    }

    /// The groups of `kind` (of one source, or of all).
    public func groups(kind: CatalogItemKind, sourceID: Int64?) async throws(FeatureError) -> [CatalogGroup] {
        try await mapped { try await catalog.groups(kind: kind, sourceID: sourceID) }
    }

    // MARK: Favourites

    /// Marks item `itemID` a favourite (at the end of the order) or not.
    public func setFavourite(itemID: Int64, _ favourite: Bool) async throws(FeatureError) {
        try await mapped { try await catalog.setFavourite(itemID: itemID, favourite) }
    }

    /// Moves favourite `itemID` to `position` in the order.
    public func moveFavourite(itemID: Int64, to position: Int) async throws(FeatureError) {
        try await mapped { try await catalog.moveFavourite(itemID: itemID, to: position) }
    }

    /// Orders the favourites as `itemIDs` lists them.
    public func setFavouriteOrder(itemIDs: [Int64]) async throws(FeatureError) {
        try await mapped { try await catalog.setFavouriteOrder(itemIDs: itemIDs) }
    }

    // MARK: Guide

    /// What is on now and next on each of `itemIDs` at `time` (seconds since 1970).
    public func nowNext(itemIDs: [Int64], at time: Int64) async throws(FeatureError) -> [GuideNowNext] {
        try await mapped { try await catalog.nowNext(itemIDs: itemIDs, at: time) }
    }

    /// The programmes of `itemIDs` between `from` and `to` (seconds since 1970), by item.
    public func guide(
        itemIDs: [Int64], from: Int64, to: Int64
    ) async throws(FeatureError) -> [Int64: [GuideProgramme]] {
        try await mapped { try await catalog.guide(itemIDs: itemIDs, from: from, to: to) }
    }

    /// The guide channel a user attached to item `itemID`, if any.
    public func guideMapping(itemID: Int64) async throws(FeatureError) -> String? {
        try await mapped { try await catalog.guideMapping(itemID: itemID) }
    }

    /// The guide channels proposed for item `itemID` by name, best first with their scores' parts,
    /// and the one matched automatically, if any.
    public func guideSuggestions(
        itemID: Int64, limit: Int = 3
    ) async throws(FeatureError) -> (automatic: GuideAutomaticMatch?, suggestions: [GuideMatchSuggestion]) {
        try await mapped {
            guard let item = try await catalog.item(id: itemID) else { throw CatalogError.itemNotFound(itemID) }
            let channels = try await catalog.guideMatchChannels()
            let matcher = guideMatcher.withLock { cached -> GuideMatcher in
                if let cached, cached.channels == channels { return cached.matcher }
                let matcher = GuideMatcher(channels: channels)
                cached = (channels, matcher)
                return matcher
            }
            let automatic = try await catalog.automaticGuideMatch(itemID: itemID)
            let refused = try await catalog.refusedGuideMatches(itemID: itemID)
            return (
                automatic, matcher.suggestions(forName: item.name, group: item.group, limit: limit, excluding: refused)
            )
        }
    }

    /// Records that item `itemID` is not guide channel `epgID`: no longer suggested, its
    /// automatic match goes if it was that one, and the next import never picks it.
    public func refuseGuideMatch(itemID: Int64, epgID: String) async throws(FeatureError) {
        try await mapped { try await catalog.refuseGuideMatch(itemID: itemID, epgID: epgID) }
    }

    /// Attaches item `itemID` to guide channel `epgID` (nil: back to its own `tvg-id` and name;
    /// the empty id: "no guide").
    public func setGuideMapping(itemID: Int64, epgID: String?) async throws(FeatureError) {
        try await mapped { try await catalog.setGuideMapping(itemID: itemID, epgID: epgID) }
    }

    /// The store's errors as feature errors: unknown ids are `notFound`, what does not apply
    /// (a favourite order naming a non-favourite, a kind without that view) `conflict`, a
    /// provider's failure `upstream`, the database's `failed`.
    private func mapped<T>(_ body: () async throws -> T) async throws(FeatureError) -> T {
        do {
            return try await body()
        } catch let error as FeatureError {
            throw error
        } catch let error as CatalogError {
            throw FeatureError(error)
        } catch {
            throw FeatureError(.failed, "the catalog could not be read or changed: \(error)", cause: error)
        }
    }
}
