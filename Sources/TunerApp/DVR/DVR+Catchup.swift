import Foundation
import LiveTV
import TunerAPI

/// Local catch-up: a catch-up rule's channels stay tuned, each by a viewer of the DVR's own that
/// reads nothing (the session's time-shift window gets the bytes), and their windows keep the
/// rule's days. Outputs and the guide offer those days as catch-up where the provider has none
/// (``Player/withLocalCatchup(_:)``).
extension DVR {
    /// The marks of the enabled catch-up rules (a channel in two keeps the longer days and the
    /// higher priority), handed to the time-shift windows; the first time, the windows on disk
    /// are swept (what is no longer kept goes).
    func markCatchup(_ rules: [RecordingRule]) {
        var marks: [Int64: (days: Int, priority: Int)] = [:]
        for rule in rules where rule.enabled && rule.kind == .catchup {
            for channelID in rule.channelIDs {
                let days = rule.keepDays ?? 1
                let current = marks[channelID] ?? (0, Int.min)
                marks[channelID] = (max(current.days, days), max(current.priority, rule.priority))
            }
        }
        catchupMarks = marks
        live.timeshift?.setCatchup(marks.mapValues(\.days))
        if !windowsSwept {
            windowsSwept = true
            live.timeshift?.sweep()
        }
    }

    /// Tunes each marked channel that has no viewer of ours (or whose session ended: the provider
    /// failed, or a higher priority took the connection), lets go of channels no longer marked,
    /// and ages the windows of channels that stopped playing.
    func keepCatchupTuned() async {
        for (channelID, viewer) in catchupViewers where catchupMarks[channelID] == nil {
            viewer.close()
            catchupViewers[channelID] = nil
        }
        for (channelID, mark) in catchupMarks.sorted(by: { $0.key < $1.key }) {
            if let viewer = catchupViewers[channelID], viewer.session.endReason == nil { continue }
            catchupViewers[channelID]?.close()
            catchupViewers[channelID] = nil
            do {
                let viewer = try await live.watch(
                    LiveSessions.Request(channelID: channelID, address: "local catch-up", priority: mark.priority))
                // Marks may have changed while the channel was being tuned.
                guard catchupMarks[channelID] != nil else {
                    viewer.close()
                    continue
                }
                catchupViewers[channelID] = viewer
                if catchupFailing.remove(channelID) != nil {
                    logger.info("local catch-up tunes its channel again", metadata: ["channel": "\(channelID)"])
                }
            } catch {
                if catchupFailing.insert(channelID).inserted {
                    logger.warning(
                        "local catch-up cannot tune its channel; trying again every few seconds",
                        metadata: ["channel": "\(channelID)", "error": "\(error)"])
                }
            }
        }
        ageWindows()
    }

    /// Every ten minutes or so: windows of channels that stopped playing drop what aged out.
    private func ageWindows() {
        let minute = now() / 60
        guard minute % 10 == 0, minute != lastAged else { return }
        lastAged = minute
        live.timeshift?.sweep()
    }

    /// Lets every channel go (the DVR stops).
    func releaseCatchup() {
        for viewer in catchupViewers.values { viewer.close() }
        catchupViewers = [:]
    }
}
