import Foundation

/// Turns the items and episodes of one import into ``ImportBatch`` rows: normalized names,
/// identities (duplicates told apart by order of appearance), headers as JSON, and groups and
/// series numbered in order of first appearance.
///
/// Everything here is pure Swift work, so a playlist import runs it on the parsing thread and
/// leaves the database thread nothing but SQLite to run. One encoder per import: the
/// duplicate counts are what keep identities stable from one refresh to the next.
struct ImportRowEncoder {
    private struct GroupKey: Hashable {
        var kind: CatalogItemKind
        var name: String
    }

    /// How often each identity of each kind was seen in this import.
    private var seen: [CatalogItemKind: [String: Int]] = [:]
    private var groups: [GroupKey: Int32] = [:]
    /// Series by identity (before duplicates are told apart), as episodes name them.
    private var series: [String: Int32] = [:]
    private let json = JSONEncoder()
    private var folds = CatalogIdentity.ScalarFolds()
    /// Items count from 1, episodes from 0, as they always have.
    private var nextPosition = 1
    private var nextEpisodePosition = 0

    /// Appends a channel, movie or series.
    mutating func encode(_ item: CatalogItemDraft, sourceBytes: Int64 = 0, into batch: inout ImportBatch) throws {
        var row = ImportRow(role: .item, countedKind: item.kind.counted)
        try fill(&row, with: item, normalizedName: CatalogIdentity.normalizedName(item.name, folds: &folds), in: &batch)
        row.sourceBytes = sourceBytes
        batch.rows.append(row)
    }

    /// Appends an episode of `series`; the series item comes along the first time it is seen.
    mutating func encode(
        _ episode: CatalogEpisodeDraft, of series: CatalogItemDraft, sourceBytes: Int64 = 0,
        into batch: inout ImportBatch
    ) throws {
        let normalized = CatalogIdentity.normalizedName(series.name, folds: &folds)
        let key = CatalogIdentity.identity(
            kind: .series, tvgID: nil, providerID: series.providerID, normalizedName: normalized, url: nil)
        var row: ImportRow
        if let index = self.series[key] {
            row = ImportRow(role: .episode, countedKind: .series)
            row.series = index
        } else {
            row = ImportRow(role: .episodeOfNewSeries, countedKind: .series)
            row.series = Int32(self.series.count)
            self.series[key] = row.series
            try fill(&row, with: series, normalizedName: normalized, in: &batch)
        }
        row.season = episode.season
        row.episode = episode.episode
        row.title = batch.append(episode.title)
        row.episodeURL = batch.append(episode.url)
        row.episodeHeaders = batch.append(try headersJSON(episode.headers))
        row.duration = episode.duration
        row.episodePosition = nextEpisodePosition
        nextEpisodePosition += 1
        row.sourceBytes = sourceBytes
        batch.rows.append(row)
    }

    /// The item columns of `row`.
    private mutating func fill(
        _ row: inout ImportRow, with item: CatalogItemDraft, normalizedName: String, in batch: inout ImportBatch
    ) throws {
        var identity = CatalogIdentity.identity(
            kind: item.kind, tvgID: item.tvgID, providerID: item.providerID, normalizedName: normalizedName,
            url: item.url)
        let occurrences = Self.increment(&seen[item.kind, default: [:]][identity, default: 0])
        if occurrences > 0 {
            // Providers list the same channel twice (backup streams); order of appearance keeps
            // each duplicate's identity stable from one refresh to the next.
            identity += "#\(occurrences + 1)"
        }
        row.kind = batch.append(item.kind.rawValue)
        row.identity = batch.append(identity)
        row.name = batch.append(item.name)
        row.normalizedName = batch.append(normalizedName)
        if let group = item.group {
            let key = GroupKey(kind: item.kind, name: group)
            if let index = groups[key] {
                row.group = index
            } else {
                row.group = Int32(groups.count)
                groups[key] = row.group
            }
        }
        row.groupName = batch.append(item.group)
        row.tvgID = batch.append(item.tvgID)
        row.tvgName = batch.append(item.tvgName)
        row.logo = batch.append(item.logo)
        row.number = batch.append(item.number)
        row.url = batch.append(item.url)
        row.headers = batch.append(try headersJSON(item.headers))
        row.catchupType = batch.append(item.catchup?.type)
        row.catchupDays = item.catchup?.days
        row.catchupSource = batch.append(item.catchup?.source)
        row.tvgShift = item.tvgShift
        row.isRadio = item.isRadio
        row.providerID = batch.append(item.providerID)
        row.position = nextPosition
        nextPosition += 1
    }

    /// Adds one and returns the value before: through `inout`, a dictionary entry is looked up once.
    private static func increment(_ value: inout Int) -> Int {
        defer { value += 1 }
        return value
    }

    private func headersJSON(_ headers: [CatalogHeader]) throws -> String? {
        guard !headers.isEmpty else { return nil }
        return String(decoding: try json.encode(headers), as: UTF8.self)
    }
}
