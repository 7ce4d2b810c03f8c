import Foundation

// The guide, stream checks, movie details and episodes' replacement on PostgreSQL: placeholders
// until their port lands (this file is replaced by it).
extension PostgresCatalogStore {
    public func replaceGuide(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any GuideImportSink) throws -> Void
    ) async throws -> GuideImportCounts {
        throw Self.notYet("replacing a guide")
    }

    public func nowNext(itemIDs: [Int64], at time: Int64) async throws -> [GuideNowNext] {
        throw Self.notYet("now and next")
    }

    public func guide(itemIDs: [Int64], from: Int64, to: Int64) async throws -> [Int64: [GuideProgramme]] {
        throw Self.notYet("the guide")
    }

    public func setGuideMapping(itemID: Int64, epgID: String?) async throws {
        throw Self.notYet("guide mappings")
    }

    @discardableResult
    public func pruneGuide(endingBefore time: Int64) async throws -> Int {
        throw Self.notYet("pruning the guide")
    }

    public func guideMapping(itemID: Int64) async throws -> String? {
        throw Self.notYet("guide mappings")
    }

    public func programme(id: Int64) async throws -> GuideProgramme? {
        throw Self.notYet("programmes")
    }

    public func streamItems(ids: [Int64]?, sourceID: Int64?, kind: CatalogItemKind?) async throws -> [CatalogItem] {
        throw Self.notYet("stream checks")
    }

    public func recordStreamChecks(_ checks: [CatalogStreamCheck]) async throws {
        throw Self.notYet("stream checks")
    }

    public func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails? {
        throw Self.notYet("movie details")
    }

    public func setMovieDetails(itemID: Int64, _ details: CatalogMovieDetails, url: String?) async throws {
        throw Self.notYet("movie details")
    }

    public func replaceEpisodes(ofSeries seriesID: Int64, with episodes: [CatalogEpisodeDraft]) async throws {
        throw Self.notYet("replacing episodes")
    }

    static func notYet(_ what: String) -> CatalogError {
        .unsupported("\(what) on PostgreSQL yet; use the SQLite database for now")
    }
}
