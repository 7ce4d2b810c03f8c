import Catalog
import Foundation
import Hummingbird
import TunerAPI
import TunerApp

/// The catalog routes beyond listing: guide (now/next, grid, a channel's programmes), manual
/// guide mapping, catch-up, stream checks, movie details and source settings.
extension CatalogController {
    func addGuideRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.changeSource, use: patchSource)
        router.add(.guide, use: grid)
        router.add(.guideNow, use: nowNext)
        router.add(.channelGuide, use: channelGuide)
        router.add(.setGuideMapping, use: setMapping)
        router.add(.removeGuideMapping) { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            try await engine.browse.setGuideMapping(itemID: id, epgID: nil)
            return GuideMappingAnswer(itemID: id, epgID: nil)
        }
        router.add(.guideSuggestions, use: suggestions)
        router.add(.refuseGuideSuggestion) { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let body = try await decode(RefuseMatchRequest.self, request, context)
            let epgID = body.epgID.trimmingCharacters(in: .whitespaces)
            guard !epgID.isEmpty, epgID.count <= 500 else {
                throw FeatureError(.invalid, "'epgID' must name a guide channel (1 to 500 characters)")
            }
            try await engine.browse.refuseGuideMatch(itemID: id, epgID: epgID)
            return try await suggestionsAnswer(id: id, limit: 3)
        }
        router.add(.catchup, use: catchup)
        router.add(.checkChannels, use: check)
        router.add(.movieDetails) { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return Body(value: try await engine.library.movieDetails(itemID: id))
        }
    }

    @Sendable func patchSource(request: Request, context: TunerRequestContext) async throws -> SourceAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        let patch = try await decode(SourcePatch.self, request, context)
        return SourceAnswer(
            try await engine.library.updateSource(
                id: id, name: patch.name, epgURLs: patch.epgURLs, refreshInterval: patch.refreshInterval,
                maxConnections: patch.maxConnections))
    }

    /// `GET /guide/now?at=…` and the channel filters: what is on now and next, for a page of channels.
    @Sendable func nowNext(request: Request, context: TunerRequestContext) async throws -> NowNextPage {
        let at = try Self.time(request, "at") ?? Self.now()
        let page = try await channelPage(request)
        let guide = try await engine.browse.nowNext(itemIDs: page.items.map(\.id), at: at)
        let byItem = Dictionary(guide.map { ($0.itemID, $0) }, uniquingKeysWith: { first, _ in first })
        let brief = Self.isBrief(request)
        return NowNextPage(
            at: at, total: page.total, offset: page.offset, limit: page.limit,
            channels: page.items.map {
                NowNextPage.Channel(
                    item: ChannelAnswer(engine.player.withLocalCatchup($0)),
                    now: byItem[$0.id]?.now.map { ProgrammeAnswer(Self.shortened($0, brief)) },
                    next: byItem[$0.id]?.next.map { ProgrammeAnswer(Self.shortened($0, brief)) })
            })
    }

    /// `GET /guide?from=…&to=…` and the channel filters: the programmes of a page of channels
    /// that overlap the window (default: now to three hours on).
    @Sendable func grid(request: Request, context: TunerRequestContext) async throws -> GridPage {
        let from = try Self.time(request, "from") ?? Self.now()
        let to = try Self.time(request, "to") ?? from + 3 * 3600
        guard to > from else { throw FeatureError(.invalid, "'to' must be after 'from'") }
        guard to - from <= 7 * 86_400 else {
            throw FeatureError(.invalid, "a grid covers at most 7 days; narrow 'from' and 'to'")
        }
        let page = try await channelPage(request)
        let guide = try await engine.browse.guide(itemIDs: page.items.map(\.id), from: from, to: to)
        let brief = Self.isBrief(request)
        return GridPage(
            from: from, to: to, total: page.total, offset: page.offset, limit: page.limit,
            channels: page.items.map {
                GridPage.Channel(
                    item: ChannelAnswer(engine.player.withLocalCatchup($0)),
                    programmes: (guide[$0.id] ?? []).map { ProgrammeAnswer(Self.shortened($0, brief)) })
            })
    }

    /// `?brief=1`: programmes without their descriptions, for grids and lists that show titles
    /// and times (a day of a guide's descriptions is most of its bytes).
    static func isBrief(_ request: Request) -> Bool {
        request.uri.queryParameters["brief"].map { $0 == "1" || $0 == "true" } ?? false
    }

    static func shortened(_ programme: GuideProgramme, _ brief: Bool) -> GuideProgramme {
        guard brief else { return programme }
        var short = programme
        short.description = nil
        return short
    }

    /// `GET /channels/{id}/guide?from&to`: one channel's programmes (default: 3 hours ago to a day on).
    @Sendable func channelGuide(request: Request, context: TunerRequestContext) async throws -> ChannelGuideAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        guard try await engine.browse.item(id: id) != nil else {
            throw FeatureError(.notFound, "no channel with id \(id)")
        }
        let now = Self.now()
        let from = try Self.time(request, "from") ?? now - 3 * 3600
        let to = try Self.time(request, "to") ?? now + 86_400
        guard to > from else { throw FeatureError(.invalid, "'to' must be after 'from'") }
        let programmes = try await engine.browse.guide(itemIDs: [id], from: from, to: to)[id] ?? []
        // "No guide" is the empty id in the store: no mapping to name here.
        let mapping = try await engine.browse.guideMapping(itemID: id).flatMap { $0.isEmpty ? nil : $0 }
        return ChannelGuideAnswer(
            itemID: id, epgID: programmes.first?.epgID ?? mapping, mapping: mapping, from: from, to: to,
            programmes: programmes.map(ProgrammeAnswer.init))
    }

    /// `PUT /channels/{id}/guide-mapping {"epgID": "bbc1.uk"}`: use that guide channel for this
    /// channel, whatever its tvg-id and name say. Kept by identity, so it survives refreshes.
    @Sendable func setMapping(request: Request, context: TunerRequestContext) async throws -> GuideMappingAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        let body = try await decode(MappingRequest.self, request, context)
        if body.none == true {
            guard body.epgID == nil else { throw FeatureError(.invalid, "give 'epgID' or 'none', not both") }
            // The empty id is the store's "no guide".
            try await engine.browse.setGuideMapping(itemID: id, epgID: "")
            return GuideMappingAnswer(itemID: id, epgID: nil, none: true)
        }
        let epgID = body.epgID?.trimmingCharacters(in: .whitespaces)
        try await engine.browse.setGuideMapping(itemID: id, epgID: epgID?.isEmpty == false ? epgID : nil)
        return GuideMappingAnswer(itemID: id, epgID: epgID?.isEmpty == false ? epgID : nil)
    }

    /// `GET /channels/{id}/guide-suggestions?limit=N`: guide channels proposed by name (3 unless
    /// `limit` says otherwise, at most 20), and the automatic match, if any.
    @Sendable func suggestions(request: Request, context: TunerRequestContext) async throws
        -> GuideSuggestionsAnswer
    {
        let id = try context.parameters.require("id", as: Int64.self)
        var limit = 3
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(String(text)), (1...20).contains(value) else {
                throw FeatureError(.invalid, "'limit' must be a number from 1 to 20")
            }
            limit = value
        }
        return try await suggestionsAnswer(id: id, limit: limit)
    }

    func suggestionsAnswer(id: Int64, limit: Int) async throws -> GuideSuggestionsAnswer {
        let (automatic, suggestions) = try await engine.browse.guideSuggestions(itemID: id, limit: limit)
        return GuideSuggestionsAnswer(
            itemID: id, automatic: automatic.map { .init(epgID: $0.epgID, score: $0.score) },
            suggestions: suggestions.map { suggestion in
                .init(
                    epgID: suggestion.epgID, name: suggestion.name, score: suggestion.score,
                    parts: suggestion.parts.map { .init(reason: $0.reason, points: $0.points, detail: $0.detail) })
            })
    }

    /// `GET /channels/{id}/catchup?programme=P` or `?start=…&end=…`: a signed proxy URL that plays
    /// a past programme, from the channel's catch-up settings (templates or Xtream timeshift).
    @Sendable func catchup(request: Request, context: TunerRequestContext) async throws -> CatchupAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        let target: Player.CatchupTarget
        if let programmeText = request.uri.queryParameters["programme"] {
            guard let programmeID = Int64(String(programmeText)) else {
                throw FeatureError(.invalid, "'programme' must be a programme id")
            }
            target = .programme(id: programmeID)
        } else {
            guard let from = try Self.time(request, "start"), let until = try Self.time(request, "end") else {
                throw FeatureError(.invalid, "give 'programme' (an id from the guide), or 'start' and 'end'")
            }
            target = .span(start: from, end: until)
        }
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let link = try await engine.player.catchup(itemID: id, target: target, baseURL: base)
        return CatchupAnswer(
            proxyURL: link.proxyURL, start: link.start, end: link.end,
            programme: link.programme.map(ProgrammeAnswer.init))
    }

    /// `POST /channels/check {"ids": […]}` or `{"source": N}` or `{}` (every live channel):
    /// probes the streams and stores online/offline; listings then show it as `streamCheck`.
    @Sendable func check(request: Request, context: TunerRequestContext) async throws -> CheckResults {
        var body = CheckRequest()
        if let length = request.headers[.contentLength], length != "0" {
            body = try await decode(CheckRequest.self, request, context)
        }
        let checks = try await engine.library.checkChannels(ids: body.ids, sourceID: body.source)
        let online = checks.filter { $0.online }.count
        return CheckResults(
            checked: checks.count, online: online, offline: checks.count - online,
            results: checks.map(StreamCheckAnswer.init))
    }

    // MARK: - Helpers

    private func channelPage(_ request: Request) async throws -> CatalogPage<CatalogItem> {
        if let ids = request.uri.queryParameters["ids"] {
            let parsed = ids.split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            var items: [CatalogItem] = []
            for id in parsed.prefix(1000) {
                if let item = try await engine.browse.item(id: id) { items.append(item) }
            }
            return CatalogPage(items: items, total: items.count, offset: 0, limit: items.count)
        }
        return try await engine.browse.items(Self.itemQuery(request))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: TunerRequestContext) async throws
        -> T
    {
        do {
            return try await request.decode(as: type, context: context)
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// Digits, `T`, `Z`, `:`, `-`, `+` and `.`.
    static let iso8601Bytes = Set(Array("0123456789TZ:-+.".utf8))

    /// A time parameter: seconds since 1970, or ISO 8601 (`2024-03-05T06:00:00Z`).
    static func time(_ request: Request, _ name: String) throws -> Int64? {
        guard let value = request.uri.queryParameters[Substring(name)], !value.isEmpty else { return nil }
        let text = String(value)
        var seconds: Int64?
        if let number = Int64(text) {
            seconds = number
        } else if text.utf8.count <= 40, text.utf8.allSatisfy({ Self.iso8601Bytes.contains($0) }),
            let date = ISO8601DateFormatter().date(from: text)
        {
            // Only the ASCII an ISO 8601 time is made of reaches the formatter: Foundation's date
            // formatters trap on some malformed non-ASCII text.
            let interval = date.timeIntervalSince1970
            if interval.isFinite, interval.magnitude < 1e15 { seconds = Int64(interval) }
        }
        guard let seconds else {
            throw FeatureError(
                .invalid, "'\(name)' must be seconds since 1970 or an ISO 8601 time, got '\(text.prefix(64))'")
        }
        guard GuideTime.supported.contains(seconds) else {
            throw FeatureError(.invalid, "'\(name)' must be between the years 1 and 9999, got '\(text.prefix(64))'")
        }
        return seconds
    }
}
