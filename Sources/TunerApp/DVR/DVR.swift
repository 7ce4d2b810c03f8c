import Catalog
import Foundation
import LiveTV
import Logging
import NIOCore
import TunerAPI
import TunerStorage

/// The DVR: rules and one-off requests become scheduled recordings (``RecordingPlanner``),
/// conflicts are computed ahead (``RecordingConflicts``), and each recording joins its channel's
/// live session as a viewer when its time comes: one provider connection shared with the people
/// watching, the session's failover to alternatives, its limits. Bytes go to disk as MPEG-TS as
/// they arrive (synced in bounded steps) and are remuxed to MP4 without re-encoding at the end.
///
/// A feature object: an actor shared by the API, the CLI and the events hub.
public actor DVR {
    let store: any RecordingStore
    let catalog: any CatalogStore
    let live: LiveSessions
    /// Where recordings go: `<data>/recordings`, or `--recordings-dir`.
    public nonisolated let directory: String
    /// Recording stops (as failed) when the disk's free space falls below this.
    let minimumFreeBytes: Int64
    let logger: Logger
    var planner = RecordingPlanner()
    let feed = ChangeFeed<RecordingEvent>()
    /// The seconds since 1970 (a test's clock may run ahead).
    let now: @Sendable () -> Int64
    private var jobs: [Int64: Task<Void, Never>] = [:]
    /// The scheduled recordings that will find no connection, and why (``computeConflicts()``).
    private(set) var conflicts: [Int64: String] = [:]
    private var planNeeded = true
    /// Local catch-up: the channels its rules mark, each held tuned by a viewer of its own
    /// (``keepCatchupTuned()``), and those whose last attempt failed (said once, not every try).
    var catchupViewers: [Int64: LiveViewer] = [:]
    var catchupMarks: [Int64: (days: Int, priority: Int)] = [:]
    var catchupFailing: Set<Int64> = []
    var windowsSwept = false
    var lastAged: Int64 = 0

    /// What changed, for the events hub (`recording.*`) and tests.
    public enum RecordingEvent: Sendable {
        case changed(RecordingAnswer)
        case removed(Int64)
        case rulesChanged
    }

    public init(
        database: StateDatabase, catalog: any CatalogStore, live: LiveSessions, directory: String,
        minimumFreeBytes: Int64, logger: Logger,
        now: @escaping @Sendable () -> Int64 = {
            Int64(Date().timeIntervalSince1970)
        }
    ) {
        switch database {
        case .sqlite(let database): store = SQLiteRecordingStore(database: database)
        case .postgres(let database): store = PostgresRecordingStore(database: database, logger: logger)
        }
        self.catalog = catalog
        self.live = live
        self.directory = directory
        self.minimumFreeBytes = minimumFreeBytes
        self.logger = logger
        self.now = now
    }

    public nonisolated func changes() -> AsyncStream<RecordingEvent> { feed.subscribe() }

    // MARK: - Running

    /// Resumes what a stopped server left, then starts recordings on time and plans again when
    /// the guide or the rules change (`guideUpdates`) and every ten minutes, until cancelled.
    public func run(guideUpdates: AsyncStream<Void>) async {
        await recoverInterrupted()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                for await _ in guideUpdates { await self?.needPlan() }
            }
            var lastPlan = ContinuousClock.now
            var lastTuning = ContinuousClock.now - .seconds(60)
            while !Task.isCancelled {
                if planNeeded || lastPlan.duration(to: .now) > .seconds(600) {
                    planNeeded = false
                    lastPlan = .now
                    await plan()
                }
                await startDue()
                if lastTuning.duration(to: .now) >= .seconds(5) {
                    lastTuning = .now
                    await keepCatchupTuned()
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
            group.cancelAll()
        }
        releaseCatchup()
        // Shutdown: running recordings stop where they are; the next start resumes them.
        let running = Array(jobs.values)
        for job in running { job.cancel() }
        for job in running { await job.value }
    }

    func needPlan() { planNeeded = true }

    /// Plans from the rules and the guide: adds what they want, drops scheduled recordings no
    /// rule (or person) wants any more, and computes the conflicts.
    func plan() async {
        do {
            let rules = try await store.rules()
            markCatchup(rules)
            let recorded = try await store.recordings()
            let scope = try await channelScope(rules)
            let time = now()
            let guide = try await guide(for: Array(scope.keys), from: time - 86_400, to: time + planner.horizonSeconds)
            let wanted = planner.wanted(
                rules: rules, guide: guide, channels: scope, recorded: recorded, now: time)
            let wantedIDs = Set(wanted.map(\.identity))
            for candidate in wanted {
                let (stored, inserted) = try await store.insert(candidate)
                if inserted {
                    feed.publish(.changed(stored.answer(conflict: nil)))
                } else if stored.state == .scheduled {
                    var updated = stored
                    updated.ruleIDs = Array(Set(stored.ruleIDs + candidate.ruleIDs)).sorted()
                    updated.priority = max(candidate.priority, stored.byHand ? stored.priority : candidate.priority)
                    if !stored.byHand {
                        updated.recordStart = candidate.recordStart
                        updated.recordStop = candidate.recordStop
                    }
                    if updated != stored {
                        try await store.update(updated)
                        feed.publish(.changed(updated.answer(conflict: nil)))
                    }
                }
            }
            // Scheduled by rules only, and no rule wants it now (the guide moved it, a rule went).
            for recording in recorded
            where recording.state == .scheduled && !recording.byHand && !wantedIDs.contains(recording.identity) {
                try await store.remove(id: recording.id)
                feed.publish(.removed(recording.id))
            }
            try await computeConflicts()
            try await applyRetention(rules: rules)
        } catch {
            logger.warning("Cannot plan recordings", metadata: ["error": "\(error)"])
        }
    }

    /// The channels rules watch: their own, and for rules on any channel every live channel.
    private func channelScope(_ rules: [RecordingRule]) async throws -> [Int64: RecordingPlanner.Channel] {
        var scope: [Int64: RecordingPlanner.Channel] = [:]
        let enabled = rules.filter { $0.enabled && $0.kind != .catchup }
        if enabled.contains(where: { $0.kind != .time && $0.channelIDs.isEmpty }) {
            for entry in try await catalog.lineupItems(kinds: [.live]) where entry.item.kind == .live {
                scope[entry.item.id] = .init(id: entry.item.id, name: entry.item.name)
            }
        }
        for id in Set(enabled.flatMap(\.channelIDs)) where scope[id] == nil {
            if let item = try await catalog.item(id: id), item.kind == .live {
                scope[id] = .init(id: id, name: item.name)
            }
        }
        return scope
    }

    /// The guide of `ids` over `[from, to)`, read 500 channels at a time.
    func guide(for ids: [Int64], from: Int64, to: Int64) async throws -> [Int64: [GuideProgramme]] {
        var result: [Int64: [GuideProgramme]] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(ids.count, start + 500)])
            result.merge(try await catalog.guide(itemIDs: chunk, from: from, to: to)) { first, _ in first }
        }
        return result
    }

    /// Which scheduled (or running) recordings will not get a connection, and why.
    func computeConflicts() async throws {
        let recordings = try await store.recordings().filter { $0.state == .scheduled || $0.state == .recording }
        let sources = try await catalog.sources()
        var limits: [Int64: Int] = [:]
        for source in sources { if let limit = source.connectionLimit { limits[source.id] = limit } }
        var slots: [RecordingConflicts.Slot] = []
        for recording in recordings {
            guard let item = try await catalog.item(id: recording.channelID) else { continue }
            // A running recording holds its connection, whatever its priority.
            let priority = recording.state == .recording ? Int.max : recording.priority
            slots.append(
                .init(
                    id: recording.id, channelID: recording.channelID, sourceID: item.sourceID,
                    start: recording.recordStart, stop: recording.recordStop, priority: priority,
                    title: recording.title))
        }
        let found = RecordingConflicts.losers(slots, limits: limits)
        if found != conflicts {
            conflicts = found
            for recording in recordings where recording.state == .scheduled {
                feed.publish(.changed(recording.answer(conflict: found[recording.id])))
            }
        }
    }

    /// Starts the recordings whose time has come; fails the ones whose time has passed.
    private func startDue() async {
        let time = now()
        let due: [Recording]
        do {
            due = try await store.recordings(in: .scheduled, startingBy: time)
        } catch {
            logger.warning("Cannot read the recordings", metadata: ["error": "\(error)"])
            return
        }
        for var recording in due where jobs[recording.id] == nil {
            if recording.recordStop <= time {
                recording.state = .failed
                recording.reason = "not recorded: Tuner was not running at the time"
                await save(recording)
                continue
            }
            if let conflict = conflicts[recording.id], !recording.otherChannels {
                recording.state = .failed
                recording.reason = "not recorded: " + conflict
                await save(recording)
                continue
            }
            start(recording)
        }
    }

    private func start(_ recording: Recording) {
        var recording = recording
        let id = recording.id
        jobs[id] = Task { [weak self] in
            guard let self else { return }
            recording.state = .recording
            await self.save(recording)
            let job = RecordingJob(
                recording: recording, live: live, directory: directory, minimumFreeBytes: minimumFreeBytes,
                logger: logger, now: now, save: { [weak self] in await self?.save($0) },
                publish: { [weak self] in await self?.publish($0) })
            let finished = await job.run()
            await self.finish(finished)
        }
    }

    private func finish(_ recording: Recording) async {
        jobs[recording.id] = nil
        await save(recording)
        if recording.state == .done { try? await applyRetention(rules: try await store.rules()) }
    }

    /// Tells the subscribers of a recording's progress without writing it.
    func publish(_ recording: Recording) {
        feed.publish(.changed(recording.answer(conflict: conflicts[recording.id])))
    }

    /// Writes a recording and tells the subscribers.
    func save(_ recording: Recording) async {
        do {
            try await store.update(recording)
        } catch {
            logger.warning("Cannot save recording \(recording.id)", metadata: ["error": "\(error)"])
        }
        feed.publish(.changed(recording.answer(conflict: conflicts[recording.id])))
    }

    /// Recordings a stopped server left running: those whose span is not over go on as a new
    /// part (the time between is a gap); the others are finished with what they have.
    func recoverInterrupted() async {
        let interrupted: [Recording]
        do {
            interrupted = try await store.recordings(in: .recording, startingBy: Int64.max)
        } catch {
            logger.warning("Cannot read the recordings", metadata: ["error": "\(error)"])
            return
        }
        let time = now()
        for var recording in interrupted where jobs[recording.id] == nil {
            var stoppedAt = recording.syncedAt ?? recording.recordStart
            if var last = recording.files.last, last.to == nil {
                let path = directory + "/" + last.name
                // The file says when its last bytes were written; the row may be up to
                // RecordingJob.storeInterval older.
                if let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
                {
                    stoppedAt = max(stoppedAt, Int64(modified.timeIntervalSince1970))
                }
                last.bytes = RecordingWriter.truncateToPackets(path)
                last.receivedBytes = last.bytes
                last.to = stoppedAt
                stoppedAt = max(stoppedAt, last.from)
                recording.files[recording.files.count - 1] = last
            }
            recording.gaps.append(
                RecordingGap(
                    from: stoppedAt, to: min(time, recording.recordStop),
                    reason: "Tuner stopped during the recording"))
            logger.notice(
                "Resuming a recording the last run left", metadata: ["recording": "\(recording.id)"])
            if time < recording.recordStop {
                start(recording)
            } else {
                await finish(await RecordingJob.complete(recording, directory: directory, logger: logger))
            }
        }
    }

    // MARK: - Retention

    /// Deletes, per rule, the done recordings beyond its count and older than its days; a kept
    /// recording never.
    func applyRetention(rules: [RecordingRule]) async throws {
        let recordings = try await store.recordings()
        let time = now()
        for rule in rules where rule.keepCount != nil || rule.keepDays != nil {
            let mine = recordings.filter { $0.ruleIDs.contains(rule.id) && $0.state == .done && !$0.keep }
                .sorted { $0.start > $1.start }
            let beyondCount = rule.keepCount.map { count in Set(mine.dropFirst(count).map(\.id)) } ?? []
            let doomed = mine.filter { recording in
                beyondCount.contains(recording.id)
                    || rule.keepDays.map { time - recording.stop > Int64($0) * 86_400 } == true
            }
            for recording in doomed {
                logger.info(
                    "Retention deletes a recording",
                    metadata: ["recording": "\(recording.id)", "rule": "\(rule.id)"])
                try await deleteFiles(recording)
                try await store.remove(id: recording.id)
                feed.publish(.removed(recording.id))
            }
        }
    }

    /// Stops a running recording and waits for its job to end.
    func stopJob(_ id: Int64) async {
        guard let job = jobs[id] else { return }
        job.cancel()
        await job.value
    }

    /// Deletes a recording's files, and its title's folder with the last of them.
    func deleteFiles(_ recording: Recording) async throws {
        for file in recording.files {
            let path = directory + "/" + file.name
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
        // The title's folder goes with its last file.
        if let folder = recording.files.first.map({ directory + "/" + ($0.name as NSString).deletingLastPathComponent }
        ),
            (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true
        {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
