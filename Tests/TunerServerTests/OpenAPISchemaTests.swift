import Catalog
import Foundation
import MediaCache
import Testing
import Transfers
import TunerAPI
import TunerApp

@testable import TunerServer

/// Each answer's schema in `openapi.json` names the fields the server sends, no more and no
/// fewer: a sample of each answer type (every optional present, one element in every array) is
/// encoded as the server encodes it, and its keys are compared with the schema's `properties`,
/// recursively through nested objects and arrays.
@Suite struct OpenAPISchemaTests {
    static func sample<T: Decodable>(_ type: T.Type) -> T {
        do {
            return try SampleDecoder.sample(type)
        } catch {
            Issue.record("no sample of \(type): \(error)")
            fatalError("no sample of \(type)")
        }
    }

    /// A sample answer for each JSON entry that answers with a body, by entry name.
    static let samples: [String: any Encodable & Sendable] = {
        let message = MessageAnswer(message: "x")
        let entry = sample(TransferAnswer.self)
        let transfers = TransferList(transfers: [entry])
        let page = sample(ChannelPage.self)
        let job = sample(PreloadJobAnswer.self)
        let mapping = sample(GuideMappingAnswer.self)
        let alternatives = AlternativeList(chosen: true, alternatives: [sample(ChannelAnswer.self)])
        let who = sample(SessionAnswer.self)
        let profile = sample(OutputProfileAnswer.self)
        let user = sample(OutputUserAnswer.self)
        return [
            "health": HealthAnswer(status: "ok"),
            "cluster": sample(ClusterAnswer.self),
            "proxyURLs": ProxyURLAnswer(proxyURL: "x"),
            "cacheClear": message, "cacheDelete": message, "cancelPreload": message, "cacheExport": message,
            "cachePin": message, "pauseAllTransfers": message, "resumeAllTransfers": message,
            "purgeTransfers": message, "removeTransfer": message, "removeSource": message,
            "favouriteChannel": message, "unfavouriteChannel": message,
            "cacheTrim": sample(TrimResponse.self),
            "startPreload": job, "preload": job, "preloads": PreloadList(preloads: [job]),
            "cacheHistory": sample(CacheHistoryAnswer.self),
            "cachePins": sample(PinList.self),
            "transfers": transfers, "addTransfers": transfers, "transfer": entry, "changeTransfer": entry,
            "sources": sample(SourceList.self),
            "addSource": sample(SourceAnswer.self), "changeSource": sample(SourceAnswer.self),
            "refreshSource": sample(RefreshAnswer.self),
            "channels": page, "favourites": page, "orderFavourites": page, "channel": sample(ChannelAnswer.self),
            "playChannel": sample(PlayAnswer.self),
            "catchup": sample(CatchupAnswer.self), "checkChannels": sample(CheckResults.self),
            "episodes": sample(EpisodesAnswer.self), "playEpisode": sample(EpisodePlayAnswer.self),
            "groups": sample(GroupList.self),
            "guide": sample(GridPage.self), "guideNow": sample(NowNextPage.self),
            "channelGuide": sample(ChannelGuideAnswer.self),
            "guideSuggestions": sample(GuideSuggestionsAnswer.self),
            "refuseGuideSuggestion": sample(GuideSuggestionsAnswer.self),
            "shortEPG": sample(ShortEPGAnswer.self),
            "setGuideMapping": mapping, "removeGuideMapping": mapping,
            "addFavourite": sample(FavouriteAnswer.self), "removeFavourite": sample(FavouriteAnswer.self),
            "outputs": sample(OutputProfileList.self), "addOutput": profile, "changeOutput": profile,
            "outputChannels": sample(OutputChannelList.self),
            "outputLineup": sample(LineupPage.self), "outputLineupIdentities": sample(LineupIdentities.self),
            "changeOutputLineup": sample(LineupChangeAnswer.self), "uploadLogo": sample(LogoAnswer.self),
            "acceptLineupGuides": sample(LineupGuidesAnswer.self),
            "users": sample(OutputUserList.self), "addUser": user, "changeUser": user,
            "streams": sample(LiveStreamList.self),
            "alternatives": alternatives, "setAlternatives": alternatives,
            "session": who, "signIn": who,
            "keys": sample(APIKeyList.self),
            "addKey": sample(NewAPIKeyAnswer.self),
            "recordings": sample(RecordingList.self), "addRecording": sample(RecordingAnswer.self),
            "recording": sample(RecordingAnswer.self), "changeRecording": sample(RecordingAnswer.self),
            "removeRecording": message, "rules": sample(RuleList.self), "addRule": sample(RecordingRule.self),
            "removeRule": message, "timeshift": sample(TimeshiftAnswer.self),
            "backups": sample(BackupListAnswer.self), "addBackup": sample(BackupAnswer.self),
        ]
    }()

    /// Entries whose answer is not compared, and why.
    static let unsampled: [String: String] = [
        "openAPI": "the document itself",
        "movieDetails": "the provider's JSON, passed on as it is",
        "cacheStats": "its schema lists `streams` only, not the cache's own fields",
        "recordingFile": "the recording's own bytes (MP4 or MPEG-TS), not JSON",
        "timeshiftPlaylist": "an HLS playlist, not JSON",
        "timeshiftSegment": "an MPEG-TS segment's bytes, not JSON",
        "timeshiftStream": "fragmented MP4 bytes, not JSON",
    ]

    /// Fields an answer carries that its type does not: the idempotency journal's resend of a new
    /// key says its secret was shown once instead of showing it again.
    static let addedOutsideTheType: Set<String> = ["POST /api/v1/keys.secretShownOnce: in the schema, never sent"]

    @Test func everyAnswerIsSampledOrSaysWhyNot() {
        for operation in APIOperation.all where operation.style == .json && operation.answer != nil {
            #expect(
                Self.samples[operation.name] != nil || Self.unsampled[operation.name] != nil,
                "\(operation) answers \(operation.answer ?? "") but has no sample")
        }
    }

    @Test func everySchemaNamesTheFieldsOfItsAnswer() throws {
        let document = try OpenAPITableTests.document()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for operation in APIOperation.all {
            guard let sample = Self.samples[operation.name] else { continue }
            let described = try #require(paths[operation.path]?[operation.method.lowercased()] as? [String: Any])
            let responses = try #require(described["responses"] as? [String: Any])
            let success = responses.keys.filter { $0.hasPrefix("2") }.sorted().first
            let content = (responses[success ?? ""] as? [String: Any])?["content"] as? [String: Any]
            let schema = try #require(
                (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any],
                "\(operation): no JSON schema for its answer")
            let encoded = try RedactingJSONEncoder.makeEncoder().encode(AnyEncodable(sample))
            let json = try JSONSerialization.jsonObject(with: encoded)
            var problems: [String] = []
            Self.compare(json, schema, document: document, at: operation.description, problems: &problems)
            problems.removeAll { Self.addedOutsideTheType.contains($0) }
            #expect(problems == [], "\(operation) (\(operation.answer ?? "")) and its schema differ")
        }
    }

    /// Differences between `json`'s keys and `schema`'s properties, recursively.
    static func compare(
        _ json: Any, _ schema: [String: Any], document: [String: Any], at: String, problems: inout [String]
    ) {
        let schema = resolve(schema, document: document)
        if let object = json as? [String: Any] {
            guard let properties = schema["properties"] as? [String: Any] else {
                if schema["additionalProperties"] == nil { problems.append("\(at): the schema lists no properties") }
                return
            }
            let keys = Set(object.keys)
            let named = Set(properties.keys)
            for key in keys.subtracting(named).sorted() { problems.append("\(at).\(key): sent, not in the schema") }
            for key in named.subtracting(keys).sorted() { problems.append("\(at).\(key): in the schema, never sent") }
            for key in keys.intersection(named).sorted() {
                if let property = properties[key] as? [String: Any], let value = object[key] {
                    compare(value, property, document: document, at: "\(at).\(key)", problems: &problems)
                }
            }
        } else if let array = json as? [Any], let first = array.first, let items = schema["items"] as? [String: Any] {
            compare(first, items, document: document, at: at + "[]", problems: &problems)
        }
    }

    /// A `$ref` followed to its schema.
    static func resolve(_ schema: [String: Any], document: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/") else { return schema }
        var node: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)] ?? [:]
        }
        return resolve(node as? [String: Any] ?? [:], document: document)
    }
}

/// Any `Encodable`, for an encoder that takes a concrete type.
private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
