import Foundation
import MediaFormats

/// A finished recording as Xtream players see it: a film of the "Recordings" category (asked for
/// by hand) or an episode of a series (one per rule).
public struct XtreamRecording: Sendable, Equatable {
    public var recordingID: Int64
    /// 1 for the first file; a recording interrupted by a restart has a second.
    public var part: Int
    public var title: String
    public var subtitle: String?
    public var description: String?
    public var season: Int?
    public var episode: Int?
    /// Seconds since 1970.
    public var start: Int64
    public var durationSeconds: Int
    /// `mp4` or `ts`.
    public var container: String
    /// The rule it belongs to (a series), or nil (a film).
    public var ruleID: Int64?
    public var ruleName: String?

    public init(
        recordingID: Int64, part: Int, title: String, subtitle: String?, description: String?, season: Int?,
        episode: Int?, start: Int64, durationSeconds: Int, container: String, ruleID: Int64?, ruleName: String?
    ) {
        self.recordingID = recordingID
        self.part = part
        self.title = title
        self.subtitle = subtitle
        self.description = description
        self.season = season
        self.episode = episode
        self.start = start
        self.durationSeconds = durationSeconds
        self.container = container
        self.ruleID = ruleID
        self.ruleName = ruleName
    }

    /// The stream id players use for this file: ids from ``XtreamOutput/recordingIDBase`` up,
    /// clear of the catalogue's (which are row ids), and still 32-bit for players that think so.
    public var streamID: Int64 { XtreamOutput.recordingIDBase + recordingID * 10 + Int64(part - 1) }

    /// The recording and part a stream id names, or nil when it names none.
    public static func parse(streamID: Int64) -> (recordingID: Int64, part: Int)? {
        guard streamID >= XtreamOutput.recordingIDBase else { return nil }
        let offset = streamID - XtreamOutput.recordingIDBase
        guard offset / 10 > 0 else { return nil }
        return (offset / 10, Int(offset % 10) + 1)
    }

    /// The name players list.
    var displayName: String {
        var name = title
        if let subtitle, !subtitle.isEmpty { name += " – " + subtitle }
        if part > 1 { name += " (part \(part))" }
        return OutputText.line(name)
    }
}

extension XtreamOutput {
    /// Where recordings' ids begin: films' stream ids and rules' series ids.
    public static let recordingIDBase: Int64 = 2_000_000_000
    /// The category every recording is listed in.
    public static let recordingsCategory = "Recordings"

    /// The Recordings category, when there is something in it.
    public func recordingCategories(_ recordings: [XtreamRecording], series: Bool) -> [Category] {
        guard recordings.contains(where: { ($0.ruleID != nil) == series }) else { return [] }
        return [Category(category_id: Self.categoryID(Self.recordingsCategory), category_name: Self.recordingsCategory)]
    }

    /// Recordings asked for by hand, as films (`get_vod_streams`).
    public func recordingVODStreams(_ recordings: [XtreamRecording], category: String?) -> [VODStream] {
        let id = Self.categoryID(Self.recordingsCategory)
        guard category == nil || category == "" || category == id else { return [] }
        return recordings.filter { $0.ruleID == nil }.enumerated().map { index, recording in
            VODStream(
                num: index + 1, name: recording.displayName, stream_id: recording.streamID, stream_icon: "",
                added: String(recording.start), category_id: id, container_extension: recording.container)
        }
    }

    /// `get_vod_info` for a recording.
    public func recordingVODInfo(_ recording: XtreamRecording) -> VODInfo {
        VODInfo(
            info: .init(
                name: recording.displayName, plot: OutputText.line(recording.description ?? ""), genre: "",
                director: "", cast: "", releasedate: Self.dateTime(recording.start),
                duration_secs: recording.durationSeconds, rating: "", movie_image: ""),
            movie_data: .init(
                stream_id: recording.streamID, name: recording.displayName, container_extension: recording.container))
    }

    /// One series per rule with recordings (`get_series`); its id is the base plus the rule's.
    public func recordingSeries(_ recordings: [XtreamRecording], category: String?) -> [Series] {
        let id = Self.categoryID(Self.recordingsCategory)
        guard category == nil || category == "" || category == id else { return [] }
        var seen = Set<Int64>()
        var result: [Series] = []
        for recording in recordings {
            guard let rule = recording.ruleID, seen.insert(rule).inserted else { continue }
            result.append(
                Series(
                    num: result.count + 1, name: OutputText.line(recording.ruleName ?? recording.title),
                    series_id: Self.recordingIDBase + rule, cover: "", last_modified: String(recording.start),
                    category_id: id))
        }
        return result
    }

    /// `get_series_info` for a rule's recordings: seasons from the guide's numbers (season 1 when
    /// it has none), episodes in airing order.
    public func recordingSeriesInfo(_ recordings: [XtreamRecording], name: String) -> SeriesInfo {
        var bySeason: [Int: [SeriesInfo.Episode]] = [:]
        for recording in recordings.sorted(by: { $0.start < $1.start }) {
            let season = recording.season ?? 1
            let position = (bySeason[season]?.count ?? 0) + 1
            bySeason[season, default: []].append(
                .init(
                    id: String(recording.streamID), episode_num: recording.episode ?? position,
                    title: recording.displayName, container_extension: recording.container,
                    info: .init(duration_secs: recording.durationSeconds), added: String(recording.start),
                    season: season))
        }
        let seasons = bySeason.keys.sorted().map { number in
            SeriesInfo.Season(
                episode_count: bySeason[number]?.count ?? 0, id: number, name: "Season \(number)",
                season_number: number, cover: "", cover_big: "")
        }
        return SeriesInfo(
            seasons: seasons,
            info: .init(
                name: OutputText.line(name), cover: "", category_id: Self.categoryID(Self.recordingsCategory)),
            episodes: Dictionary(uniqueKeysWithValues: bySeason.map { (String($0.key), $0.value) }))
    }
}
