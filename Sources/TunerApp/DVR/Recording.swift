import Foundation
import TunerAPI

/// One recording as the DVR keeps it (a row of `recording`, its fields as JSON): what to record,
/// who wants it, and what was written. ``answer(conflict:)`` is what the API shows.
struct Recording: Codable, Sendable, Equatable {
    enum State: String, Codable, Sendable {
        case scheduled, recording, done, failed, cancelled

        /// Whether nothing will happen to it any more (retention may still delete it).
        var isFinished: Bool { self == .done || self == .failed || self == .cancelled }
    }

    var id: Int64 = 0
    /// What makes two requests one recording: the channel, the start and the title (see
    /// ``RecordingPlanner/identity(channelID:start:title:)``).
    var identity: String
    var state: State = .scheduled
    var channelID: Int64
    var channelName: String
    var programmeID: Int64?
    var title: String
    var subtitle: String?
    var description: String?
    var season: Int?
    var episode: Int?
    /// The episode as ``RecordingPlanner/episodeKey(_:)`` says it: how a repeat is known.
    var episodeKey: String?
    var start: Int64
    var stop: Int64
    var recordStart: Int64
    var recordStop: Int64
    var priority: Int = 0
    var ruleIDs: [Int64] = []
    var byHand = false
    var otherChannels = false
    var keep = false
    var files: [RecordingFile] = []
    var gaps: [RecordingGap] = []
    var reason: String?
    /// The last time bytes were made durable (synced): after a crash, where the gap starts.
    var syncedAt: Int64?
    var createdAt: Int64

    var bytes: Int64 { files.reduce(0) { $0 &+ $1.bytes } }

    func answer(conflict: String?) -> RecordingAnswer {
        RecordingAnswer(
            id: id, state: state.rawValue, channelID: channelID, channelName: channelName, programmeID: programmeID,
            title: title, subtitle: subtitle, description: description, season: season, episode: episode,
            start: start, stop: stop, recordStart: recordStart, recordStop: recordStop, priority: priority,
            ruleIDs: ruleIDs, byHand: byHand, keep: keep, files: files, gaps: gaps, bytes: bytes, reason: reason,
            conflict: state == .scheduled ? conflict : nil)
    }
}
