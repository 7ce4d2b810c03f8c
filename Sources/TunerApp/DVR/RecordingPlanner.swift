import Catalog
import Foundation
import TunerAPI

/// What the rules want recorded, from the guide: pure, so every rule's behaviour is tested on
/// plain values. The DVR runs it when the guide or the rules change, and as time moves on.
struct RecordingPlanner: Sendable {
    /// A channel a rule may record from.
    struct Channel: Sendable, Equatable {
        var id: Int64
        var name: String
    }

    /// How far ahead rules schedule recordings.
    var horizonSeconds: Int64 = 7 * 86_400
    /// The zone a time rule's `HH:MM` is read in.
    var timeZone: TimeZone = .current

    /// The recordings `rules` want from `guide` (each channel's programmes, in start order) at
    /// `now`, one per identity (several rules wanting one programme make one recording listing
    /// them all). `recorded` are the recordings that exist: a series rule with `newOnly` skips an
    /// episode one of them already has (a repeat), and so does a second airing in the plan.
    func wanted(
        rules: [RecordingRule], guide: [Int64: [GuideProgramme]], channels: [Int64: Channel],
        recorded: [Recording], now: Int64
    ) -> [Recording] {
        var byIdentity: [String: Recording] = [:]
        var order: [String] = []
        func add(_ candidate: Recording, rule: RecordingRule) {
            if var existing = byIdentity[candidate.identity] {
                existing.ruleIDs = Array(Set(existing.ruleIDs + [rule.id])).sorted()
                existing.priority = max(existing.priority, rule.priority)
                existing.recordStart = min(existing.recordStart, candidate.recordStart)
                existing.recordStop = max(existing.recordStop, candidate.recordStop)
                existing.otherChannels = existing.otherChannels || candidate.otherChannels
                byIdentity[candidate.identity] = existing
            } else {
                byIdentity[candidate.identity] = candidate
                order.append(candidate.identity)
            }
        }
        // Episodes already had, per series, and the recording that has each: another airing of
        // one of them (a repeat) is not recorded again.
        var seen: [String: [String: String]] = [:]
        for recording in recorded.sorted(by: { $0.start < $1.start })
        where recording.state != .failed && recording.state != .cancelled {
            guard let key = recording.episodeKey else { continue }
            let series = Self.normalised(recording.title)
            if seen[series]?[key] == nil { seen[series, default: [:]][key] = recording.identity }
        }
        for rule in rules.sorted(by: { $0.id < $1.id }) where rule.enabled {
            switch rule.kind {
            case .catchup:
                // Keeps windows (see ``CatchupKeeper``): nothing to record.
                continue
            case .time:
                for candidate in timeSlots(rule, channels: channels, now: now) { add(candidate, rule: rule) }
            case .series, .keyword:
                let scope = rule.channelIDs.isEmpty ? Array(guide.keys).sorted() : rule.channelIDs
                var found: [(channel: Channel, programme: GuideProgramme)] = []
                for channelID in scope {
                    guard let channel = channels[channelID] else { continue }
                    for programme in guide[channelID] ?? []
                    where programme.stop + Int64(rule.paddingAfterSeconds) > now
                        && programme.start < now + horizonSeconds && matches(rule, programme)
                    {
                        found.append((channel, programme))
                    }
                }
                found.sort { ($0.programme.start, $0.channel.id) < ($1.programme.start, $1.channel.id) }
                for (channel, programme) in found {
                    let candidate = Self.recording(of: programme, on: channel, rule: rule, now: now)
                    if rule.kind == .series, rule.newOnly, let key = candidate.episodeKey {
                        let series = Self.normalised(programme.title)
                        // Recorded already, or an earlier airing is in this plan: a repeat.
                        if let first = seen[series]?[key], first != candidate.identity { continue }
                        seen[series, default: [:]][key] = candidate.identity
                    }
                    add(candidate, rule: rule)
                }
            }
        }
        return order.compactMap { byIdentity[$0] }
    }

    /// Whether a series or keyword rule wants `programme`.
    func matches(_ rule: RecordingRule, _ programme: GuideProgramme) -> Bool {
        switch rule.kind {
        case .series:
            guard let title = rule.title else { return false }
            return Self.normalised(programme.title) == Self.normalised(title)
        case .keyword:
            guard let keyword = rule.keyword.map(Self.normalised), !keyword.isEmpty else { return false }
            let title = Self.normalised(programme.title)
            let description = rule.searchDescription ? programme.description.map(Self.normalised) : nil
            switch rule.keywordMatch {
            case .exact:
                return title == keyword
            case .contains:
                return title.contains(keyword) || description?.contains(keyword) == true
            case .word:
                let needle = " " + keyword + " "
                return (" " + title + " ").contains(needle)
                    || description.map { (" " + $0 + " ").contains(needle) }
                        == true
            }
        case .time, .catchup:
            return false
        }
    }

    /// A time rule's recordings from yesterday (one may be running) to the horizon.
    func timeSlots(_ rule: RecordingRule, channels: [Int64: Channel], now: Int64) -> [Recording] {
        guard let time = rule.time, let (hour, minute) = Self.clock(time), let minutes = rule.durationMinutes,
            minutes > 0
        else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: Date(timeIntervalSince1970: TimeInterval(now)))
        var result: [Recording] = []
        let days = Int(horizonSeconds / 86_400)
        for offset in -1...days {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today),
                let start = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day)
            else { continue }
            // ISO weekday: Calendar's 1 is Sunday.
            let weekday = (calendar.component(.weekday, from: start) + 5) % 7 + 1
            guard rule.weekdays.contains(weekday) else { continue }
            let startSeconds = Int64(start.timeIntervalSince1970)
            let stopSeconds = startSeconds + Int64(minutes) * 60
            guard stopSeconds + Int64(rule.paddingAfterSeconds) > now, startSeconds < now + horizonSeconds else {
                continue
            }
            for channelID in rule.channelIDs {
                guard let channel = channels[channelID] else { continue }
                let programme = GuideProgramme(
                    id: 0, epgID: "", start: startSeconds, stop: stopSeconds, title: rule.name)
                var recording = Self.recording(of: programme, on: channel, rule: rule, now: now)
                recording.programmeID = nil
                result.append(recording)
            }
        }
        return result
    }

    /// A scheduled recording of `programme` on `channel` for `rule`.
    static func recording(of programme: GuideProgramme, on channel: Channel, rule: RecordingRule, now: Int64)
        -> Recording
    {
        Recording(
            identity: identity(channelID: channel.id, start: programme.start, title: programme.title),
            channelID: channel.id, channelName: channel.name, programmeID: programme.id, title: programme.title,
            subtitle: programme.subtitle, description: programme.description, season: programme.season,
            episode: programme.episode, episodeKey: episodeKey(programme), start: programme.start,
            stop: programme.stop, recordStart: programme.start - Int64(max(0, rule.paddingBeforeSeconds)),
            recordStop: programme.stop + Int64(max(0, rule.paddingAfterSeconds)), priority: rule.priority,
            ruleIDs: [rule.id], otherChannels: rule.otherChannels, createdAt: now)
    }

    /// One programme on one channel is one recording, however many ask for it.
    static func identity(channelID: Int64, start: Int64, title: String) -> String {
        "\(channelID):\(start):\(normalised(title))"
    }

    /// What tells an episode from the others: its number, else its sub-title, else its
    /// description; nil when the guide says none of them (every airing is then new).
    static func episodeKey(_ programme: GuideProgramme) -> String? {
        if let season = programme.season, let episode = programme.episode { return "s\(season)e\(episode)" }
        if let episode = programme.episode { return "e\(episode)" }
        if let subtitle = programme.subtitle.map(normalised), !subtitle.isEmpty { return "sub:" + subtitle }
        if let description = programme.description.map(normalised), !description.isEmpty {
            return "desc:" + String(description.prefix(200))
        }
        return nil
    }

    /// Lower case, no accents, letters and digits only, one space between words.
    static func normalised(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        var result = ""
        var space = false
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                if space, !result.isEmpty { result += " " }
                space = false
                result.unicodeScalars.append(scalar)
            } else {
                space = true
            }
        }
        return result
    }

    /// `HH:MM` as hour and minute, nil for anything else.
    static func clock(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return (hour, minute)
    }
}
