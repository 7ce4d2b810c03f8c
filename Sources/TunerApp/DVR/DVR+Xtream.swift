import Foundation
import Outputs

/// Finished recordings as the Xtream output lists them: one entry per file, films for recordings
/// asked for by hand, episodes of a series per rule.
extension DVR {
    public func xtreamRecordings() async throws(FeatureError) -> [XtreamRecording] {
        let recordings = try await FeatureError.storage { try await store.recordings() }
        let rules = try await FeatureError.storage { try await store.rules() }
        let names = Dictionary(rules.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var result: [XtreamRecording] = []
        for recording in recordings where recording.state == .done {
            let rule = recording.ruleIDs.first { names[$0] != nil }
            for (index, file) in recording.files.enumerated() where index < 10 {
                result.append(
                    XtreamRecording(
                        recordingID: recording.id, part: index + 1, title: recording.title,
                        subtitle: recording.subtitle, description: recording.description, season: recording.season,
                        episode: recording.episode, start: file.from,
                        durationSeconds: Int(clamping: max(0, (file.to ?? file.from) - file.from)),
                        container: file.format, ruleID: rule, ruleName: rule.flatMap { names[$0] }))
            }
        }
        return result
    }
}
