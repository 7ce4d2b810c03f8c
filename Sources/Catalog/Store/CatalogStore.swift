import Foundation

/// Where the catalog lives. A protocol so that a shared PostgreSQL store can sit beside the
/// embedded SQLite one (``SQLiteCatalogStore``); every method is one transaction.
public protocol CatalogStore: Sendable {
    // MARK: Sources

    func addSource(_ draft: CatalogSourceDraft) async throws -> CatalogSource
    func sources() async throws -> [CatalogSource]
    func source(id: Int64) async throws -> CatalogSource?
    /// Removes a source with its items, groups and guide. Favourites stay: they are keyed by identity.
    func removeSource(id: Int64) async throws
    func updateSource(_ source: CatalogSource) async throws
    /// Records the outcome of a refresh without touching the source's items.
    func setSourceStatus(id: Int64, status: CatalogSourceStatus, error: String?, refreshedAt: Date?) async throws
    /// Records what the provider says the account allows (nil: it says nothing).
    func setProviderMaxConnections(sourceID: Int64, _ limit: Int?) async throws
    /// Marks sources left `refreshing` by a process that stopped mid-refresh as failed, so that
    /// they are retried; returns how many. Only the process that owns the catalogue calls it, at start.
    @discardableResult
    func recoverInterruptedRefreshes() async throws -> Int

    // MARK: Import

    /// Replaces every item of a source with what `produce` adds to the sink, in one transaction:
    /// readers see the old items until the new ones are complete, and if `produce` throws nothing
    /// changes. Items whose identity survives keep their row id. Runs off the cooperative pool.
    func replaceItems(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any CatalogImportSink) throws -> Void
    ) async throws -> CatalogImportCounts

    // MARK: Reading

    func items(_ query: CatalogItemQuery) async throws -> CatalogPage<CatalogItem>
    func item(id: Int64) async throws -> CatalogItem?
    func episodes(ofSeries seriesID: Int64) async throws -> [CatalogEpisode]
    func groups(kind: CatalogItemKind, sourceID: Int64?) async throws -> [CatalogGroup]
    /// The provider's own id of an item (Xtream `stream_id`/`series_id`, with its kind as prefix).
    func providerID(ofItem itemID: Int64) async throws -> String?
    /// Replaces the episodes of a series item, in one transaction.
    func replaceEpisodes(ofSeries seriesID: Int64, with episodes: [CatalogEpisodeDraft]) async throws
    /// Every playable item of `kinds` (and every series: its episodes play), in catalogue order
    /// (source, then the provider's order), in one read, each with its place among the favourites:
    /// what output profiles select from.
    func lineupItems(kinds: [CatalogItemKind]) async throws -> [LineupItem]

    // MARK: What the user sets

    func setFavourite(itemID: Int64, _ favourite: Bool) async throws
    // MARK: Guide

    /// Replaces the guide of a source (its channels and programmes) with what `produce` adds, in
    /// one transaction; if `produce` throws or adds nothing, the previous guide stays.
    func replaceGuide(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any GuideImportSink) throws -> Void
    ) async throws -> GuideImportCounts
    /// What is on each of `itemIDs` at `time` and what follows, for the channels that have a guide.
    func nowNext(itemIDs: [Int64], at time: Int64) async throws -> [GuideNowNext]
    /// The programmes of each of `itemIDs` that overlap `[from, to)`, in start order.
    func guide(itemIDs: [Int64], from: Int64, to: Int64) async throws -> [Int64: [GuideProgramme]]
    /// Which of `itemIDs` have a guide channel (by the user's mapping, `tvg-id`, name or automatic
    /// match, as ``guide(itemIDs:from:to:)`` finds them), whether or not it holds programmes now.
    func itemIDsWithGuide(_ itemIDs: [Int64]) async throws -> Set<Int64>
    /// Matches an item with a guide channel by hand (`nil` goes back to automatic matching; the
    /// empty id means "no guide": the item gets none, whatever its tvg-id and name say).
    func setGuideMapping(itemID: Int64, epgID: String?) async throws
    /// Deletes programmes that ended before `time`; returns how many.
    @discardableResult
    func pruneGuide(endingBefore time: Int64) async throws -> Int
    /// The live channels no guide reaches by mapping, `tvg-id` or exact name, and the channels
    /// of every guide (empty subjects when there is no guide).
    func guideMatchWork() async throws -> GuideMatchWork
    /// Replaces every automatic guide match with `matches`.
    func replaceAutomaticGuideMatches(_ matches: [GuideAutomaticMatch]) async throws
    /// The channels of every guide, for suggestions.
    func guideMatchChannels() async throws -> [GuideMatcher.Channel]
    /// The automatic match of an item, if it has one.
    func automaticGuideMatch(itemID: Int64) async throws -> GuideAutomaticMatch?
    /// Records that item `itemID` is not guide channel `epgID`: it is never matched to it
    /// automatically again (its automatic match goes if it was that one).
    func refuseGuideMatch(itemID: Int64, epgID: String) async throws
    /// The guide channels the user said item `itemID` is not (lowercased ids).
    func refusedGuideMatches(itemID: Int64) async throws -> Set<String>

    /// Moves a favourite to `position` in the user's own order of favourites (0 is first).
    func moveFavourite(itemID: Int64, to position: Int) async throws
    /// Puts the favourites of `itemIDs` first, in that order; the others follow in their previous
    /// order. Throws `itemNotFound` or `notFavourite` for an id that is not a favourite item.
    func setFavouriteOrder(itemIDs: [Int64]) async throws
    /// One episode of a series by its id.
    func episode(id: Int64) async throws -> CatalogEpisode?
    /// The user's guide channel for an item, if one was set.
    func guideMapping(itemID: Int64) async throws -> String?
    /// One programme of the guide by its id.
    func programme(id: Int64) async throws -> GuideProgramme?

    // MARK: Stream checks

    /// Items with a stream URL: those of `ids` (all when `nil`), of `sourceID` and `kind` when given.
    func streamItems(ids: [Int64]?, sourceID: Int64?, kind: CatalogItemKind?) async throws -> [CatalogItem]
    /// Stores the outcome of stream checks (the last one per item); items gone meanwhile are skipped.
    func recordStreamChecks(_ checks: [CatalogStreamCheck]) async throws

    // MARK: Movie details

    func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails?
    /// Stores a movie's details and, when `url` is given, its corrected stream URL.
    func setMovieDetails(itemID: Int64, _ details: CatalogMovieDetails, url: String?) async throws

    // MARK: Alternatives

    /// The alternatives of channel `itemID`, best first: the ones the user set, in the user's
    /// order; otherwise live channels of other sources with the same `tvg-id`, then with the same
    /// normalised name, in source order. At most `limit`.
    func alternatives(of itemID: Int64, limit: Int) async throws -> [CatalogItem]
    /// The alternatives the user set for `itemID`, in order (empty: found automatically).
    func chosenAlternatives(of itemID: Int64) async throws -> [CatalogItem]
    /// Sets the alternatives of `itemID` in order; an empty list goes back to automatic ones.
    /// Every id must be another live channel.
    func setAlternatives(of itemID: Int64, to alternativeIDs: [Int64]) async throws
}

extension CatalogStore {
    /// The first eight alternatives of channel `itemID`: what failover tries.
    public func alternatives(of itemID: Int64) async throws -> [CatalogItem] {
        try await alternatives(of: itemID, limit: 8)
    }
}
