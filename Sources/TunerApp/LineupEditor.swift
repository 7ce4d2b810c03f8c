import Catalog
import Foundation
import Outputs
import TunerAPI

/// The lineup editor: a profile's live channels listed with every other one, narrowed by a
/// filter, and changed (added, removed, numbered, named, grouped, given logos, disabled) through
/// ``OutputStore/changeLineup(profileID:_:)``.
///
/// A feature object between the HTTP layer and the output store. Each change is published on the
/// `outputs` topic, so every open page (on any node) shows it.
public final class LineupEditor: Sendable {
    let outputs: OutputCenter
    let catalog: any CatalogStore
    /// Guide suggestions (its matcher is built once per guide).
    let browse: Browse
    let events: EventHub

    public init(outputs: OutputCenter, catalog: any CatalogStore, browse: Browse, events: EventHub) {
        self.outputs = outputs
        self.catalog = catalog
        self.browse = browse
        self.events = events
    }

    /// What the editor's list shows: the lineup, the rest, or both; narrowed by source, group
    /// (the shown one), words and whether a channel has a guide.
    public struct Filter: Sendable, Equatable {
        public enum Show: String, Sendable, CaseIterable { case all, lineup, other }
        public enum Guide: String, Sendable, CaseIterable { case any, has, none }

        public var show: Show
        public var sourceID: Int64?
        public var group: String?
        /// Words every shown name (or group) contains, ignoring case and accents.
        public var search: String?
        public var guide: Guide

        public init(
            show: Show = .all, sourceID: Int64? = nil, group: String? = nil, search: String? = nil, guide: Guide = .any
        ) {
            self.show = show
            self.sourceID = sourceID
            self.group = group
            self.search = search
            self.guide = guide
        }

        /// The filter a query names (`show`, `source`, `group`, `search`, `guide`); an unknown
        /// value is refused, naming the ones taken.
        public init(query: [String: String]) throws(FeatureError) {
            func value<T: RawRepresentable & CaseIterable>(_ name: String, default: T) throws(FeatureError) -> T
            where T.RawValue == String {
                guard let text = query[name], !text.isEmpty else { return `default` }
                guard let value = T(rawValue: text) else {
                    let taken = T.allCases.map(\.rawValue).joined(separator: ", ")
                    throw FeatureError(.invalid, "\(name) must be one of \(taken)")
                }
                return value
            }
            show = try value("show", default: Show.all)
            guide = try value("guide", default: Guide.any)
            if let text = query["source"], !text.isEmpty {
                guard let id = Int64(text) else { throw FeatureError(.invalid, "source must be a source's id") }
                sourceID = id
            }
            group = query["group"].flatMap { $0.isEmpty ? nil : $0 }
            search = query["search"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            guard (group?.utf8.count ?? 0) <= 1_000, (search?.utf8.count ?? 0) <= 1_000 else {
                throw FeatureError(.invalid, "group and search must have at most 1000 bytes")
            }
        }
    }

    /// The most rows one page carries.
    public static let largestPage = 500

    /// A page of the list.
    public func page(
        profileID: String, filter: Filter, offset: Int, limit: Int, base: String
    ) async throws(FeatureError) -> LineupPage {
        guard offset >= 0, (1...Self.largestPage).contains(limit) else {
            throw FeatureError(.invalid, "offset must be 0 or more and limit from 1 to \(Self.largestPage)")
        }
        let (profile, entries, lineupCount) = try await matching(profileID: profileID, filter: filter)
        let start = min(offset, entries.count)
        let slice = Array(entries[start..<min(entries.count, start.addingReportingOverflow(limit).partialValue)])
        let guided = try await outputs.mapped { try await catalog.itemIDsWithGuide(slice.map(\.item.id)) }
        let rows = slice.map { entry in
            let item = entry.item
            let edit = profile.edits[item.identity]
            var shown = item
            if let logo = edit?.logo { shown.logo = logo }
            return LineupRow(
                itemID: item.id, identity: item.identity, sourceID: item.sourceID, name: item.name, group: item.group,
                number: entry.number, inLineup: entry.number != nil, disabled: edit?.disabled ?? false,
                hasGuide: guided.contains(item.id), rename: profile.renames[item.identity],
                groupOverride: edit?.group, logoOverride: edit?.logo,
                logoURL: Player.logoURL(of: shown, player: outputs.player, baseURL: base))
        }
        return LineupPage(
            profileID: profile.id, pickedOnly: profile.selection.pickedOnly, total: entries.count,
            lineupCount: lineupCount, offset: start, rows: rows)
    }

    /// Every identity the filter lets through, in the list's order ("select all").
    public func identities(profileID: String, filter: Filter) async throws(FeatureError) -> LineupIdentities {
        LineupIdentities(
            identities: try await matching(profileID: profileID, filter: filter).entries.map(\.item.identity))
    }

    /// Applies a change, all or nothing, and tells every open page.
    public func change(profileID: String, _ request: LineupChangeRequest) async throws(FeatureError)
        -> LineupChangeAnswer
    {
        let change = OutputLineupChange(
            add: request.add ?? [], remove: request.remove ?? [],
            renumber: request.renumber.map { .init(identities: $0.identities, from: $0.from) },
            place: request.place.map { .init(identity: $0.identity, number: $0.number) },
            edits: (request.edits ?? []).map {
                .init(identity: $0.identity, name: $0.name, group: $0.group, logo: $0.logo, disabled: $0.disabled)
            })
        guard !change.isEmpty else { throw FeatureError(.invalid, "the change asks for nothing") }
        let profile = try await outputs.changeLineup(profileID: profileID, change)
        let count = try await outputs.mapped { try await outputs.store.editorEntries(profileID: profile.id) }
            .entries.count { $0.number != nil }
        let answer = LineupChangeAnswer(profileID: profile.id, lineupCount: count)
        _ = events.publish(.outputs, "lineup.changed", key: "lineup:\(profile.id)", value: answer)
        return answer
    }

    /// Maps each of `identities` that has no guide to its best guide suggestion (the bulk "accept"
    /// of the suggestions the channel panel shows one at a time); a channel with a guide, or whose
    /// guide the user chose (or said it has none), is left as it is.
    public func acceptBestGuides(profileID: String, identities: [String]) async throws(FeatureError)
        -> LineupGuidesAnswer
    {
        guard identities.count <= OutputLineupChange.largest else {
            throw FeatureError(.invalid, "at most \(OutputLineupChange.largest) channels at once")
        }
        let wanted = Set(identities)
        let (_, entries) = try await outputs.mapped { try await outputs.store.editorEntries(profileID: profileID) }
        let items = entries.map(\.item).filter { wanted.contains($0.identity) }
        let guided = try await outputs.mapped { try await catalog.itemIDsWithGuide(items.map(\.id)) }
        var answer = LineupGuidesAnswer(accepted: 0, alreadyGuided: 0, withoutSuggestion: 0)
        for item in items {
            // A guide or "no guide" the user chose stays, whatever the suggestions say.
            if try await browse.guideMapping(itemID: item.id) != nil {
                answer.chosenByHand += 1
                continue
            }
            if guided.contains(item.id) {
                answer.alreadyGuided += 1
                continue
            }
            guard let best = try await browse.guideSuggestions(itemID: item.id, limit: 1).suggestions.first else {
                answer.withoutSuggestion += 1
                continue
            }
            try await browse.setGuideMapping(itemID: item.id, epgID: best.epgID)
            answer.accepted += 1
        }
        if answer.accepted > 0 {
            let count = entries.count { $0.number != nil }
            _ = events.publish(
                .outputs, "lineup.changed", key: "lineup:\(profileID)",
                value: LineupChangeAnswer(profileID: profileID, lineupCount: count))
        }
        return answer
    }

    /// Keeps an uploaded logo; `created` is false when the same image was there.
    public func uploadLogo(_ bytes: [UInt8]) async throws(FeatureError) -> (answer: LogoAnswer, created: Bool) {
        let (logo, created) = try await outputs.mapped { try await outputs.store.saveLogo(bytes) }
        return (LogoAnswer(logo: logo.reference, url: "/logos/" + logo.name), created)
    }

    /// An uploaded logo by its file name, with the type it is served as; nil for an unknown one.
    public func logo(named name: String) async throws(FeatureError) -> (bytes: [UInt8], contentType: String)? {
        guard let logo = ChannelLogo(name: name) else { return nil }
        guard let bytes = try await outputs.mapped({ try await outputs.store.logoBytes(logo) }) else { return nil }
        return (bytes, logo.format.contentType)
    }

    // MARK: Filtering

    func matching(profileID: String, filter: Filter) async throws(FeatureError) -> (
        profile: OutputProfile, entries: [OutputLineupEntry], lineupCount: Int
    ) {
        let (profile, all) = try await outputs.mapped { try await outputs.store.editorEntries(profileID: profileID) }
        let lineupCount = all.count { $0.number != nil }
        let words = Self.words(filter.search)
        var entries = all.filter { entry in
            switch filter.show {
            case .all: break
            case .lineup: if entry.number == nil { return false }
            case .other: if entry.number != nil { return false }
            }
            let item = entry.item
            if let sourceID = filter.sourceID, item.sourceID != sourceID { return false }
            let edit = profile.edits[item.identity]
            let group = edit?.group ?? item.group
            if let wanted = filter.group, group != wanted { return false }
            if !words.isEmpty {
                let text = Self.folded((profile.renames[item.identity] ?? item.name) + " " + (group ?? ""))
                if !words.allSatisfy({ text.contains($0) }) { return false }
            }
            return true
        }
        if filter.guide != .any {
            let guided = try await outputs.mapped { try await catalog.itemIDsWithGuide(entries.map(\.item.id)) }
            entries.removeAll { guided.contains($0.item.id) != (filter.guide == .has) }
        }
        return (profile, entries, lineupCount)
    }

    static func words(_ search: String?) -> [String] {
        guard let search else { return [] }
        return folded(search).split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// Lowercased without accents: "Télé" finds "tele".
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
