/// Which scheduled recordings will find no free connection when they start, computed ahead so
/// the Recordings page says so before it happens. Recordings of one channel share its upstream
/// (one connection); a source allows `limit` channels at once. Higher priority wins, then the
/// earlier request; a loser is named with the recordings that take the connections.
struct RecordingConflicts: Sendable {
    struct Slot: Sendable, Equatable {
        var id: Int64
        var channelID: Int64
        var sourceID: Int64
        var start: Int64
        var stop: Int64
        var priority: Int
        var title: String
    }

    /// The losers and why, by recording id. `limits` maps a source to the channels it may play
    /// at once (absent: no limit).
    static func losers(_ slots: [Slot], limits: [Int64: Int]) -> [Int64: String] {
        var accepted: [Slot] = []
        var losers: [Int64: String] = [:]
        for slot in slots.sorted(by: { ($0.priority, -$0.id) > ($1.priority, -$1.id) }) {
            guard let limit = limits[slot.sourceID] else {
                accepted.append(slot)
                continue
            }
            let others = accepted.filter {
                $0.sourceID == slot.sourceID && $0.start < slot.stop && slot.start < $0.stop
            }
            // The channels playing at each moment a recording starts within this one's span.
            var worst: [Slot] = []
            for moment in Set([slot.start] + others.map(\.start)) where slot.start <= moment && moment < slot.stop {
                let playing = others.filter { $0.start <= moment && moment < $0.stop }
                let channels = Set(playing.map(\.channelID) + [slot.channelID])
                if channels.count > limit, playing.count > worst.count { worst = playing }
            }
            if worst.isEmpty {
                accepted.append(slot)
            } else {
                let names = worst.filter { $0.channelID != slot.channelID }.map {
                    "'\($0.title)' (priority \($0.priority))"
                }
                losers[slot.id] =
                    "the provider account allows \(limit) channel\(limit == 1 ? "" : "s") at once, and "
                    + names.joined(separator: ", ") + " record\(names.count == 1 ? "s" : "") then"
            }
        }
        return losers
    }
}
