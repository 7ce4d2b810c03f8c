import Catalog
import Foundation
import TunerAPI

/// What the API, the CLI and the web app ask of the DVR.
extension DVR {
    /// Every recording, by start: upcoming (with their predicted conflicts), running and done.
    public func list() async throws(FeatureError) -> [RecordingAnswer] {
        // Computed now: in a cluster the node answering may not be the one that plans.
        try? await computeConflicts()
        let recordings = try await FeatureError.storage { try await store.recordings() }
        return recordings.map { $0.answer(conflict: conflicts[$0.id]) }
    }

    public func recording(id: Int64) async throws(FeatureError) -> RecordingAnswer {
        let recording = try await stored(id)
        return recording.answer(conflict: conflicts[id])
    }

    /// Records a programme of the guide, or a channel over a span. A programme asked for twice
    /// (by two people, or by a person and a rule) is one recording listing both; the answer says
    /// whether this request made it.
    public func add(_ request: AddRecordingRequest) async throws(FeatureError) -> (RecordingAnswer, created: Bool) {
        // The same bounds as a rule's.
        let before = Int64(try Self.bounded(request.paddingBeforeSeconds, "paddingBeforeSeconds", Self.padding) ?? 0)
        let after = Int64(try Self.bounded(request.paddingAfterSeconds, "paddingAfterSeconds", Self.padding) ?? 0)
        let priority = try Self.bounded(request.priority, "priority", Self.priorities) ?? 0
        let time = now()
        var candidate: Recording
        if let programmeID = request.programmeID {
            guard let programme = try await FeatureError.storage({ try await catalog.programme(id: programmeID) })
            else { throw FeatureError(.notFound, "no programme with id \(programmeID) in the guide") }
            let channelID: Int64
            if let given = request.channelID {
                channelID = given
            } else {
                channelID = try await channel(carrying: programme)
            }
            let item = try await liveChannel(channelID)
            candidate = RecordingPlanner.recording(
                of: programme, on: .init(id: item.id, name: item.name),
                rule: RecordingRule(
                    kind: .series, name: programme.title, paddingBeforeSeconds: Int(before),
                    paddingAfterSeconds: Int(after), priority: priority),
                now: time)
            candidate.ruleIDs = []
        } else {
            guard let channelID = request.channelID, let start = request.start, let stop = request.stop else {
                throw FeatureError.invalid(
                    "name a programme (programmeID) or a channel and a span (channelID, start, stop in seconds "
                        + "since 1970)"
                )
            }
            // Times from 1970 to 2100: the arithmetic below (padding, the span) stays far from overflow.
            let sane: ClosedRange<Int64> = 0...4_102_444_800
            guard sane.contains(start), sane.contains(stop) else {
                throw FeatureError.invalid("start and stop are seconds since 1970, before the year 2100")
            }
            guard stop > start, stop - start <= 24 * 3600 else {
                throw FeatureError.invalid("a recording's span is from 1 second to 24 hours (stop after start)")
            }
            let item = try await liveChannel(channelID)
            let title = RecordingNames.safe(request.title ?? item.name)
            candidate = Recording(
                identity: RecordingPlanner.identity(channelID: channelID, start: start, title: title),
                channelID: channelID, channelName: item.name, title: title, start: start, stop: stop,
                recordStart: start - before, recordStop: stop + after, priority: priority,
                createdAt: time)
        }
        guard candidate.recordStop > time else {
            throw FeatureError.invalid("'\(candidate.title)' has ended: only what is on or to come can be recorded")
        }
        candidate.byHand = true
        candidate.otherChannels = request.otherChannels ?? false
        let made = candidate
        let (stored, inserted) = try await FeatureError.storage { try await store.insert(made) }
        var recording = stored
        if !inserted {
            // Asked again (or a rule had it): one recording, now wanted by hand too.
            if !recording.byHand || recording.priority < made.priority {
                recording.byHand = true
                recording.priority = max(recording.priority, made.priority)
                let changed = recording
                try await FeatureError.storage { try await store.update(changed) }
            }
        }
        // The conflicts are the list's as soon as this answer is: computed now, not on the next plan.
        try? await computeConflicts()
        feed.publish(.changed(recording.answer(conflict: conflicts[recording.id])))
        needPlan()
        return (recording.answer(conflict: conflicts[recording.id]), inserted)
    }

    /// Keeps a recording from retention (or lets retention have it again).
    public func change(id: Int64, keep: Bool) async throws(FeatureError) -> RecordingAnswer {
        var recording = try await stored(id)
        recording.keep = keep
        let changed = recording
        try await FeatureError.storage { try await store.update(changed) }
        let answer = recording.answer(conflict: conflicts[id])
        feed.publish(.changed(answer))
        return answer
    }

    /// A scheduled recording is cancelled (and stays so: no rule brings it back); a running one
    /// stops and is deleted with its files; a finished one is deleted with its files.
    public func delete(id: Int64) async throws(FeatureError) {
        var recording = try await stored(id)
        if recording.state == .scheduled {
            recording.state = .cancelled
            recording.reason = "cancelled"
            let changed = recording
            try await FeatureError.storage { try await store.update(changed) }
            feed.publish(.changed(recording.answer(conflict: nil)))
            // The connection it would have taken is free: another may record now.
            try? await computeConflicts()
            needPlan()
            return
        }
        await stopJob(id)
        // The job's last save may have changed the row: delete what is there now.
        let current = (try? await store.recording(id: id)) ?? recording
        try await FeatureError.storage {
            try await deleteFiles(current)
            try await store.remove(id: id)
        }
        feed.publish(.removed(id))
    }

    /// The path of file `part` (1 is the first) of a recording, to serve.
    public func filePath(id: Int64, part: Int) async throws(FeatureError) -> String {
        let recording = try await stored(id)
        guard part >= 1, part <= recording.files.count else {
            throw FeatureError(.notFound, "recording \(id) has \(recording.files.count) file(s), not a part \(part)")
        }
        return directory + "/" + recording.files[part - 1].name
    }

    // MARK: Rules

    public func rules() async throws(FeatureError) -> [RecordingRule] {
        try await FeatureError.storage { try await store.rules() }
    }

    /// Checks and stores a rule, then plans at once: its recordings are listed in the answer's
    /// wake (events) and in the next list.
    public func addRule(_ request: RuleRequest) async throws(FeatureError) -> RecordingRule {
        let rule = try await validated(request)
        let stored = try await FeatureError.storage { try await store.addRule(rule) }
        feed.publish(.rulesChanged)
        await plan()
        return stored
    }

    public func removeRule(id: Int64) async throws(FeatureError) {
        guard try await FeatureError.storage({ try await store.removeRule(id: id) }) else {
            throw FeatureError(.notFound, "no rule with id \(id)")
        }
        feed.publish(.rulesChanged)
        await plan()
    }

    /// Seconds of padding and the priorities a rule or a one-off recording may have.
    static let padding = 0...21_600
    static let priorities = -1000...1000

    /// `value` when it is absent or within `range`, else an `invalid` error naming `name`.
    static func bounded(_ value: Int?, _ name: String, _ range: ClosedRange<Int>) throws(FeatureError) -> Int? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw FeatureError.invalid("\(name) must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A series title or a keyword: trimmed, at most 300 characters, with a letter or a digit.
    static func phrase(_ text: String?, refusal: String) throws(FeatureError) -> String {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.count <= 300,
            !RecordingPlanner.normalised(text).isEmpty
        else { throw FeatureError.invalid(refusal) }
        return text
    }

    private func validated(_ request: RuleRequest) async throws(FeatureError) -> RecordingRule {
        let bounded = Self.bounded
        let channels = request.channelIDs ?? []
        guard channels.count <= 1000 else { throw FeatureError.invalid("a rule names at most 1000 channels") }
        for id in Set(channels) { _ = try await liveChannel(id) }
        var rule = RecordingRule(
            kind: request.kind, name: "", channelIDs: Array(Set(channels)).sorted(),
            newOnly: request.newOnly ?? false, keywordMatch: request.keywordMatch ?? .word,
            searchDescription: request.searchDescription ?? false,
            paddingBeforeSeconds: try bounded(request.paddingBeforeSeconds, "paddingBeforeSeconds", Self.padding) ?? 0,
            paddingAfterSeconds: try bounded(request.paddingAfterSeconds, "paddingAfterSeconds", Self.padding) ?? 0,
            priority: try bounded(request.priority, "priority", Self.priorities) ?? 0,
            keepCount: try bounded(request.keepCount, "keepCount", 1...100_000),
            keepDays: try bounded(request.keepDays, "keepDays", 1...36_500),
            otherChannels: request.otherChannels ?? false)
        switch request.kind {
        case .series:
            let title = try Self.phrase(
                request.title, refusal: "a series rule needs a title (letters or digits, at most 300)")
            rule.title = title
            rule.name = request.name ?? title
        case .keyword:
            let keyword = try Self.phrase(
                request.keyword, refusal: "a keyword rule needs a keyword (letters or digits, at most 300)")
            rule.keyword = keyword
            rule.name = request.name ?? keyword
        case .time:
            guard !channels.isEmpty else { throw FeatureError.invalid("a time rule needs its channels (channelIDs)") }
            guard let time = request.time, RecordingPlanner.clock(time) != nil else {
                throw FeatureError.invalid("a time rule needs a start time as HH:MM (24-hour, the server's time zone)")
            }
            let weekdays = Array(Set(request.weekdays ?? [])).sorted()
            guard !weekdays.isEmpty, weekdays.allSatisfy({ (1...7).contains($0) }) else {
                throw FeatureError.invalid("a time rule needs weekdays from 1 (Monday) to 7 (Sunday)")
            }
            guard let minutes = try bounded(request.durationMinutes, "durationMinutes", 1...1440) else {
                throw FeatureError.invalid("a time rule needs durationMinutes (1 to 1440)")
            }
            rule.time = time
            rule.weekdays = weekdays
            rule.durationMinutes = minutes
            rule.name = request.name ?? "Recording at \(time)"
        case .catchup:
            guard !channels.isEmpty, channels.count <= 100 else {
                throw FeatureError.invalid("a catch-up rule needs its channels (channelIDs, 1 to 100)")
            }
            guard let days = try bounded(request.keepDays, "keepDays", 1...30) else {
                throw FeatureError.invalid("a catch-up rule needs keepDays: how many days its channels keep (1 to 30)")
            }
            rule.keepDays = days
            rule.keepCount = nil
            rule.name = request.name ?? "Catch-up, \(days) days"
        }
        rule.name = RecordingNames.safe(String(rule.name.prefix(300)))
        return rule
    }

    // MARK: Helpers

    private func stored(_ id: Int64) async throws(FeatureError) -> Recording {
        guard let recording = try await FeatureError.storage({ try await store.recording(id: id) }) else {
            throw FeatureError(.notFound, "no recording with id \(id)")
        }
        return recording
    }

    private func liveChannel(_ id: Int64) async throws(FeatureError) -> CatalogItem {
        guard let item = try await FeatureError.storage({ try await catalog.item(id: id) }), item.kind == .live else {
            throw FeatureError(.notFound, "no live channel with id \(id)")
        }
        return item
    }

    /// The channel whose guide a programme belongs to (the first live channel matched to it).
    private func channel(carrying programme: GuideProgramme) async throws(FeatureError) -> Int64 {
        let items = try await FeatureError.storage { try await catalog.lineupItems(kinds: [.live]) }
        let ids = items.map(\.item.id)
        let guide = try await FeatureError.storage {
            try await self.guide(for: ids, from: programme.start, to: programme.stop)
        }
        guard let found = ids.first(where: { guide[$0]?.contains { $0.id == programme.id } == true }) else {
            throw FeatureError(.notFound, "no channel carries programme \(programme.id): give channelID")
        }
        return found
    }
}

extension FeatureError {
    /// Runs a DVR store call: a feature error as it is, a lost database as `unavailable`, any
    /// other failure as `failed`, naming what could not be done.
    static func storage<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws(FeatureError) -> T {
        do {
            return try await body()
        } catch let error as FeatureError {
            throw error
        } catch {
            throw FeatureError(.failed, "the recordings could not be read or changed: \(error)", cause: error)
        }
    }
}
