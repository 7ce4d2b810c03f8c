import Foundation
import Logging
import MediaFormats

/// The task manager: keeps every transfer, schedules them within the concurrency limits, hands
/// each to the executor of its kind, retries failures, and announces changes.
///
/// Every task lives in memory and is written through to the ``TransferStore`` (a single writer
/// flushes the newest state of changed tasks, so writes never overtake each other). Operations
/// that the user calls are valid from any state they make sense in and throw
/// ``TransferError`` otherwise. Nothing runs until ``run()`` (or ``start()``); operations work
/// before that (the CLI edits the queue without running it).
///
/// Several managers (nodes) may share one store: a manager claims a task in the store before it
/// runs it (see ``TransferStore``), renews its claims from the ticker and releases them when a
/// run ends. A task added through a manager is claimed for it by the insert itself: the node
/// that accepted a task runs it unless it dies (then its claim expires after
/// ``Configuration/claimLifetime`` and another node takes the task over), and it starts such a
/// task without a claim's round trip while that claim has a third of its lifetime left. Such a
/// claim is given up when the task leaves the queue unstarted (paused, cancelled, deleted) and
/// at shutdown. A task another worker holds is not started; it is looked at again a third of a
/// claim's lifetime later, and what that worker made of it (finished, paused, deleted) is taken
/// over from the store.
///
/// The pieces it holds: the ``TransferRunner`` runs each transfer and each backoff wake-up, the
/// ``TransferTicker`` emits progress and finds stalls, the ``TransferFlusher`` keeps the single
/// writer's books, and the pure ``TransferScheduler`` decides. The runner and the ticker are child
/// tasks of ``run()``, the one lifecycle.
public actor TransferManager {
    /// Why the manager cancelled a run; decides the task's state once the run has ended.
    enum StopIntent {
        case pause, cancel, delete, shutdown, requeue, stall
        /// The claim expired and another worker took the task over: stop without writing.
        case lost
    }

    struct Run {
        /// Stops the run (a child task of the runner) and says when it has ended.
        var control: TransferRunControl
        var meter: TransferMeter
        var intent: StopIntent?
        var lastProgress: (bytes: Int64, at: Date, speed: Double)
        /// False once the run has only the disk left to wait for (every byte received): it no
        /// longer counts against the limits, so the next task starts meanwhile. At most
        /// `maximumActive` such runs wait at once, so a slow disk cannot pile up runs.
        var holdsSlot = true
        /// The run committed a checkpoint from which a crash recovers its completion
        /// (`TransferContext.commitFinal`), so its end may be written lazily.
        var recoverable = false
        /// The store granted this run the task's claim (it is renewed from then on).
        var claimed = false
        /// When the claim expires as far as this manager wrote it (its grant or last renewal).
        var claimUntil = Date.distantPast
    }

    nonisolated public let configuration: Configuration
    nonisolated public let dataDirectory: String
    nonisolated public let downloadsDirectory: String
    nonisolated let logger: Logger
    /// Whom the store's claims name for this manager (``Configuration/workerID``).
    nonisolated public let workerID: String
    /// Decides what starts, what a failure becomes and what has stalled.
    nonisolated let scheduler: TransferScheduler
    /// "Now" and waiting, from the injected clock.
    nonisolated let time: TransferTime
    private let store: any TransferStore
    private let hub = TransferEventHub()
    private var executors: [TransferKind: any TransferExecutor] = [:]
    private var tasks: [Int64: TransferTask] = [:]
    /// The waiting ones among `tasks` in queue order, kept by `keep(_:)` and `forget(_:)`, so
    /// `schedule()` reads only the few it starts instead of walking and sorting every task.
    private var waiting: WaitingQueue
    private var runs: [Int64: Run] = [:]
    private var addedHere: Set<Int64> = []
    /// Destination names chosen by `add` calls that are still writing them to the store.
    private var namesBeingAdded: Set<String> = []
    /// The highest committed offset each task reached in this process.
    private var highWater: [Int64: Int64] = [:]
    private var started = false
    private var stopping = false
    /// Where runs and wake-ups go while ``run()`` runs.
    private var runner: TransferRunner?
    /// ``run()`` in the task ``start()`` made for it; ``shutdown()`` cancels and awaits it.
    private var lifecycle: Task<Void, Never>?
    private var wakeUp: (control: TransferRunControl, at: Date)?
    private var random = SystemRandomNumberGenerator()
    /// The single writer: ids whose newest state must reach the store, and waiters for a flush.
    private var flusher = TransferFlusher()
    /// Waiting tasks this manager added, claimed for it with their insert and not started since,
    /// with when that claim expires as far as this manager knows (set by the insert and by each
    /// renewal that still found it). A start skips the claim's round trip while the claim has
    /// at least a third of its lifetime left (see `launch`).
    private var claimsHeld: [Int64: Date] = [:]
    /// Tasks that could not be claimed (another worker holds them), and when to try again.
    private var heldElsewhere: [Int64: Date] = [:]
    /// When the ticker next renews this manager's claims.
    private var nextRenewal = Date.distantPast
    /// When the store is next read for tasks other workers added (``Configuration/discoversTasks``).
    private var nextDiscovery = Date.distantPast

    /// Callers of `waitUntilFinished`, with the ids they still wait for.
    private let finishWaiters = TransferFinishWaiters()

    /// Opens the manager on `store`, loading its tasks. Files go to `<dataDirectory>/downloads`
    /// (or the configuration's downloads folder).
    /// Every time the manager reads or waits for comes from `clock` (tests pass a manual one).
    public init(
        store: any TransferStore, dataDirectory: String, configuration: Configuration = Configuration(), logger: Logger,
        clock: some Clock<Duration> = ContinuousClock()
    ) async throws {
        let loadedTasks = try await store.loadAll()
        self.store = store
        scheduler = configuration.scheduler
        time = TransferTime(clock: clock)
        self.configuration = configuration
        self.dataDirectory = dataDirectory
        downloadsDirectory = configuration.downloadsDirectory ?? dataDirectory + "/downloads"
        self.logger = logger
        workerID = configuration.workerID ?? Self.defaultWorkerID(dataDirectory: dataDirectory)
        try FileManager.default.createDirectory(atPath: downloadsDirectory, withIntermediateDirectories: true)
        var byID: [Int64: TransferTask] = [:]
        for task in loadedTasks { byID[task.id] = task }
        tasks = byID
        waiting = WaitingQueue(loadedTasks)
    }

    /// Makes `executor` run its kinds.
    public func register(_ executor: any TransferExecutor) {
        for kind in executor.kinds { executors[kind] = executor }
        schedule()
    }

    /// A new stream of every change from now on; any number of subscribers.
    nonisolated public func events() -> AsyncStream<TransferEvent> {
        hub.subscribe()
    }

    // MARK: - Life cycle

    /// Runs the manager until the calling task is cancelled, then shuts down: the body of a
    /// service, and the manager's one lifecycle (``start()`` runs it in a task of its own).
    ///
    /// It restores the tasks that were active when the process stopped (they resume from their
    /// committed offset, after the executor checks the partial file against it) and schedules.
    /// Its pieces are child tasks of one group: the ``TransferRunner`` (every run and backoff
    /// wake-up) and the ``TransferTicker``. Cancelling it stops every run (each commits what it
    /// has synced and stays `active` in the store, so the next start resumes it) and writes
    /// everything out.
    public func run() async {
        guard let runner = begin() else {
            // Already running (``start()``): wait like a service, then stop it.
            await TransferRunControl().untilCancelled()
            await shutdown()
            return
        }
        await run(runner)
    }

    /// Starts ``run()`` in a task the manager keeps, for callers without a service group (the
    /// CLI's `--wait`, embedders, tests); ``shutdown()`` ends it. Scheduling has begun on return.
    public func start() {
        guard let runner = begin() else { return }
        lifecycle = Task { await self.run(runner) }
    }

    /// Stops every run (each commits what it has synced), keeps their tasks `active` in the store
    /// so the next start resumes them, and writes everything out.
    public func shutdown() async {
        stopping = true
        for id in runs.keys { runs[id]?.intent = .shutdown }
        wakeUp?.control.cancel()
        wakeUp = nil
        if let lifecycle {
            self.lifecycle = nil
            // Its runs end cancelled, with the intent set above.
            lifecycle.cancel()
            await lifecycle.value
        } else {
            // Never started, or run by a service that has not cancelled it yet.
            let running = runs.values
            for run in running { run.control.cancel() }
            for run in running { await run.control.ended() }
            await ended()
        }
    }

    /// Marks the manager running, requeues what a stop left active, and makes the runner the
    /// first runs go to; nil when it runs already.
    private func begin() -> TransferRunner? {
        guard !started else { return nil }
        started = true
        stopping = false
        if configuration.runsStoredTasks {
            for (id, var task) in tasks where task.state == .active && runs[id] == nil {
                task.state = .waiting
                task.record("resuming after a restart from byte \(task.committedBytes)")
                store(task)
            }
        }
        let runner = TransferRunner()
        self.runner = runner
        schedule()
        return runner
    }

    /// The pieces as child tasks until the calling task is cancelled; the runner returns once
    /// every run it holds has ended.
    private func run(_ runner: TransferRunner) async {
        let ticker = TransferTicker(
            interval: scheduler.tickInterval(progressInterval: configuration.progressInterval), time: time)
        await withDiscardingTaskGroup { group in
            group.addTask { await runner.run() }
            group.addTask { await ticker.run { await self.tick() } }
            await TransferRunControl().untilCancelled()
        }
        await ended()
    }

    /// After the last run: every change in the store, subscribers and waiters released.
    private func ended() async {
        stopping = true
        started = false
        runner = nil
        wakeUp?.control.cancel()
        wakeUp = nil
        // Tasks added here but not started: other workers may take them at once.
        for id in claimsHeld.keys { flusher.release(id) }
        claimsHeld = [:]
        await flush()
        hub.finish()
        finishWaiters.releaseAll()
    }

    // MARK: - Queries

    /// How many transfers this manager runs now (not those of other nodes on the same queue).
    public var runningCount: Int { runs.count }

    /// Every task, in queue order: higher priority first, then by position.
    public func list() -> [TransferTask] {
        tasks.values.sorted(by: Self.queueOrder)
    }

    public func task(id: Int64) -> TransferTask? { tasks[id] }

    /// The latest progress of a running task.
    public func progress(id: Int64) -> TransferProgress? {
        guard let run = runs[id] else { return nil }
        let reading = run.meter.reading
        return Self.progress(id: id, reading: reading, speed: run.lastProgress.speed)
    }

    /// Waits until every task in `ids` is complete, in error or removed (or deleted), and returns
    /// them (early when the calling task is cancelled or the manager shuts down).
    ///
    /// The manager resumes the caller itself when the last of them finishes, rather than the
    /// caller reading every event: with 1,000 small downloads those were thousands of hops onto
    /// this actor.
    public func waitUntilFinished(ids: [Int64]) async -> [TransferTask] {
        let pending = Set(ids.filter { id in tasks[id].map { !$0.state.isFinished } ?? false })
        if !pending.isEmpty, !stopping {
            let token = finishWaiters.reserve()
            // Registered on this actor, in the same step that read `pending`, so no task can
            // finish in between unnoticed.
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    finishWaiters.register(token, pending: pending, continuation)
                }
            } onCancel: { [finishWaiters] in
                finishWaiters.cancel(token)
            }
        }
        return ids.compactMap { tasks[$0] }
    }

    // MARK: - Operations

    /// Adds one task; see ``add(_:)-(TransferRequest)``.
    public func add(_ request: TransferRequest) async throws -> TransferTask {
        try await add([request])[0]
    }

    /// Adds tasks in one transaction, `waiting` (or `paused`), and schedules them.
    public func add(_ requests: [TransferRequest]) async throws -> [TransferTask] {
        var drafts: [TransferTask] = []
        // Names of adds still waiting on the store count as taken: this actor is reentrant at the
        // `await` below, and two adds of one name at once must not share one file.
        var taken = Set(tasks.values.filter { $0.state != .removed }.map(\.destinationName)).union(namesBeingAdded)
        var nextPosition = (tasks.values.map(\.position).max() ?? -1) + 1
        let now = time.now()
        // Many requests: one listing of the folder instead of two `stat`s per request (2,000
        // for an input file of 1,000 URLs, before the first byte could move).
        let listed: Set<String>? =
            requests.count > 16
            ? (try? FileManager.default.contentsOfDirectory(atPath: downloadsDirectory)).map(Set.init) : nil
        let exists: (String) -> Bool = { [downloadsDirectory] name in
            if let listed { return listed.contains(name) }
            return FileManager.default.fileExists(atPath: downloadsDirectory + "/" + name)
        }
        for request in requests {
            try request.validate(hasExecutor: executors[request.kind] != nil)
            let wanted =
                request.destinationName.map(DestinationName.sanitize)
                ?? (request.kind == .downloadHLS
                    ? DestinationName.deriveFolder(from: request.sourceURL)
                    : DestinationName.derive(from: request.sourceURL))
            let name = DestinationName.unique(wanted) { candidate in
                taken.contains(candidate) || exists(candidate) || exists(candidate + ".partial")
            }
            taken.insert(name)
            var task = TransferTask(
                kind: request.kind, sourceURL: request.sourceURL, headers: request.headers, destinationName: name,
                priority: request.priority, position: nextPosition, state: request.paused ? .paused : .waiting,
                expectedSHA256: request.expectedSHA256?.lowercased(), properties: request.properties, createdAt: now,
                updatedAt: now)
            task.record("added")
            nextPosition += 1
            drafts.append(task)
        }
        let reserved = Set(drafts.map(\.destinationName))
        namesBeingAdded.formUnion(reserved)
        defer { namesBeingAdded.subtract(reserved) }
        // The waiting ones are claimed for this manager by the insert itself: the node that
        // accepted a task runs it unless it dies (renewals keep the claim meanwhile), and starts
        // it without a claim's round trip.
        let lifetime = configuration.claimLifetime
        let stored = try await store.insert(drafts, claimingFor: workerID, until: now.addingTimeInterval(lifetime))
        for task in stored {
            if task.state == .waiting { claimsHeld[task.id] = now.addingTimeInterval(lifetime) }
            keep(task)
            addedHere.insert(task.id)
            hub.publish(.changed(task))
        }
        // Requests with an explicit position are moved there after the insert.
        for (request, task) in zip(requests, stored) {
            if let position = request.position { try move(id: task.id, to: position) }
        }
        schedule()
        return stored.map { tasks[$0.id] ?? $0 }
    }

    /// Stops a task, keeping its partial data. Waiting, active and error tasks can be paused.
    public func pause(id: Int64) async throws {
        var task = try existing(id)
        switch task.state {
        case .paused: return
        case .waiting, .error:
            task.state = .paused
            task.nextAttemptAt = nil
            task.record("paused")
            store(task)
        case .active:
            await stop(id, intent: .pause)
        case .complete, .removed:
            throw TransferError.invalidState(id: id, state: task.state, action: "pause", hint: "")
        }
        schedule()
    }

    /// Queues a paused task again.
    public func resume(id: Int64) throws {
        var task = try existing(id)
        switch task.state {
        case .waiting, .active: return
        case .paused:
            task.state = .waiting
            task.nextAttemptAt = nil
            task.record("resumed")
            store(task)
        case .error:
            throw TransferError.invalidState(id: id, state: task.state, action: "resume", hint: "use retry")
        case .complete, .removed:
            throw TransferError.invalidState(id: id, state: task.state, action: "resume", hint: "")
        }
        schedule()
    }

    /// Queues a failed (or paused, or backing-off) task again now, with a fresh retry budget.
    public func retry(id: Int64) throws {
        var task = try existing(id)
        switch task.state {
        case .active: return
        case .error, .paused, .waiting:
            task.state = .waiting
            task.nextAttemptAt = nil
            task.retryCount = 0
            task.errorReason = nil
            task.errorClass = nil
            task.record("retry requested")
            store(task)
        case .complete, .removed:
            throw TransferError.invalidState(id: id, state: task.state, action: "retry", hint: "add it again")
        }
        schedule()
    }

    /// Cancels a task: state `removed`, partial data deleted; the record stays until purged.
    public func cancel(id: Int64) async throws {
        let task = try existing(id)
        switch task.state {
        case .removed: return
        case .complete:
            throw TransferError.invalidState(
                id: id, state: task.state, action: "cancel", hint: "delete it instead")
        case .active:
            await stop(id, intent: .cancel)
        case .waiting, .paused, .error:
            var changed = task
            changed.state = .removed
            changed.nextAttemptAt = nil
            changed.record("cancelled")
            store(changed)
        }
        if let current = tasks[id] { try await discardPartial(of: current) }
        schedule()
    }

    /// Deletes a task and what it produced: a complete download's file, or a partial one.
    public func delete(id: Int64) async throws {
        let task = try existing(id)
        if runs[id] != nil { await stop(id, intent: .delete) }
        let current = tasks[id] ?? task
        if current.state == .complete {
            if let executor = executors[current.kind] {
                try await executor.deleteResult(current, context: context(for: id))
            } else {
                throw TransferError.invalidState(
                    id: id, state: current.state, action: "delete", hint: "no executor handles \(current.kind)")
            }
        } else {
            try await discardPartial(of: current)
        }
        try await remove(ids: [id])
        schedule()
    }

    /// Moves a task to `index` in the queue (0 = first), renumbering the others.
    public func move(id: Int64, to index: Int) throws {
        _ = try existing(id)
        var ordered = tasks.values.sorted { ($0.position, $0.id) < ($1.position, $1.id) }
        guard let current = ordered.firstIndex(where: { $0.id == id }) else { return }
        let moving = ordered.remove(at: current)
        ordered.insert(moving, at: min(max(0, index), ordered.count))
        for (position, var task) in ordered.enumerated() where task.position != Int64(position) {
            task.position = Int64(position)
            store(task, publish: task.id == id)
        }
        schedule()
    }

    /// Gives a task a new source URL (an expired link renewed). Partial data is kept: the next
    /// attempt resumes with the old validators, and restarts from 0 if the new URL's resource
    /// does not match them.
    public func changeSource(id: Int64, to url: String) async throws {
        let task = try existing(id)
        guard task.state != .complete && task.state != .removed else {
            throw TransferError.invalidState(
                id: id, state: task.state, action: "change the URL of", hint: "add a new task")
        }
        try TransferRequest(kind: task.kind, sourceURL: url).validate(hasExecutor: executors[task.kind] != nil)
        if runs[id] != nil { await stop(id, intent: .requeue) }
        guard var changed = tasks[id] else { throw TransferError.noTask(id) }
        changed.sourceURL = url
        changed.retryCount = 0
        changed.errorReason = nil
        changed.errorClass = nil
        changed.nextAttemptAt = nil
        if changed.state == .error || changed.state == .active { changed.state = .waiting }
        changed.record("source URL changed")
        store(changed)
        schedule()
    }

    /// Pauses every waiting and active task.
    public func pauseAll() async {
        for task in tasks.values where task.state == .waiting || task.state == .active {
            try? await pause(id: task.id)
        }
    }

    /// Resumes every paused task.
    public func resumeAll() {
        // All first, then one scheduling pass, so the queue order decides what starts.
        for var task in tasks.values where task.state == .paused {
            task.state = .waiting
            task.nextAttemptAt = nil
            task.record("resumed")
            store(task)
        }
        schedule()
    }

    /// Deletes the records of complete, failed and removed tasks (finished files stay on disk;
    /// a failed task's partial data is deleted). Returns how many records went.
    @discardableResult
    public func purgeFinished() async throws -> Int {
        let finished = tasks.values.filter { $0.state.isFinished }
        for task in finished where task.state == .error { try await discardPartial(of: task) }
        try await remove(ids: finished.map(\.id))
        return finished.count
    }

    /// Waits until every change so far is in the store.
    public func flush() async {
        guard !flusher.isIdle else { return }
        startFlushing(now: true)
        guard let target = flusher.pendingGeneration else { return }
        await withCheckedContinuation { continuation in
            flusher.wait(for: target, continuation)
        }
    }

    // MARK: - Executor callbacks

    func recordCheckpoint(
        id: Int64, _ checkpoint: TransferCheckpoint, note: String?, releasingSlot: Bool = false
    ) async throws {
        guard var task = tasks[id] else { throw CancellationError() }
        // Progress is a new high-water mark: bytes re-downloaded after a restart from 0 do not
        // count, or a resource that changes on every request would be retried forever.
        if checkpoint.committedBytes > highWater[id, default: task.committedBytes] {
            highWater[id] = checkpoint.committedBytes
            task.retryCount = 0
        }
        task.committedBytes = checkpoint.committedBytes
        task.totalBytes = checkpoint.totalBytes
        task.etag = checkpoint.etag
        task.lastModified = checkpoint.lastModified
        for (key, value) in checkpoint.properties { task.properties[key] = value }
        if let note {
            task.record(note)
            logger.info("transfer note", metadata: ["transfer": "\(id)", "note": "\(note)"])
        }
        store(task, publish: note != nil)
        if releasingSlot, runs[id] != nil {
            runs[id]?.recoverable = true
            // Before the flush, so the next task's launch joins this write.
            releaseSlot(id: id)
        }
        await flush()
    }

    /// Returns when this manager still holds the claim of `id`'s run (asking the store, and
    /// renewing the claim there, when the last renewal is more than half a lifetime old);
    /// otherwise the run is stopped as taken over (as a renewal that misses it does) and this
    /// throws `CancellationError`. Runs call it (``TransferContext/confirmClaim()``) just before
    /// they put a result in place: a worker that stalled past its claim's lifetime must not finish
    /// what another worker now runs.
    func confirmClaim(id: Int64) async throws {
        guard let run = runs[id], run.claimed else { throw CancellationError() }
        let now = time.now()
        // Renewed lately (as a worker that keeps up is, every third of the lifetime): no other
        // worker can take the claim before it expires, unless its clock runs half a lifetime
        // ahead. The store is asked only when renewals have fallen behind.
        if run.claimUntil.timeIntervalSince(now) > configuration.claimLifetime / 2 { return }
        let until = now.addingTimeInterval(configuration.claimLifetime)
        let kept = try await store.claim(ids: [id], by: workerID, until: until, now: now)
        guard kept != [id] else {
            if runs[id]?.control === run.control { runs[id]?.claimUntil = until }
            return
        }
        if let current = runs[id], current.control === run.control, current.intent == nil {
            logger.warning(
                "another worker took over a transfer about to finish; stopping it", metadata: ["transfer": "\(id)"])
            runs[id]?.intent = .lost
            current.control.cancel()
        }
        throw CancellationError()
    }

    /// The run of `id` only waits for the disk now: the next task may start (see `Run.holdsSlot`).
    func releaseSlot(id: Int64) {
        guard runs[id]?.intent == nil, runs[id]?.holdsSlot == true else { return }
        runs[id]?.holdsSlot = false
        schedule()
    }

    func recordNote(id: Int64, _ message: String) {
        guard var task = tasks[id] else { return }
        task.record(message)
        store(task)
    }

    // MARK: - Scheduling

    static func queueOrder(_ a: TransferTask, _ b: TransferTask) -> Bool {
        TransferScheduler.runsBefore((a.priority, a.position, a.id), (b.priority, b.position, b.id))
    }

    /// Starts waiting tasks while the global and per-host limits allow, highest priority first:
    /// the scheduler decides, this carries it out.
    ///
    /// It runs every time a task ends, so with a long queue it must stay cheap: nothing happens
    /// while every slot is taken, and it reads the `waiting` queue in order, only as far as needed.
    private func schedule() {
        let holders = runs.filter(\.value.holdsSlot)
        guard started, !stopping, holders.count < configuration.maximumActive,
            runs.count < 2 * configuration.maximumActive
        else { return }
        let candidates = waiting.inOrder.lazy.filter { entry in
            let id = entry.candidate.id
            return self.runs[id] == nil && self.executors[entry.kind] != nil
                && (self.configuration.runsStoredTasks || self.addedHere.contains(id))
                && self.heldElsewhere[id] == nil && !self.flusher.isReleasing(id)
        }.map(\.candidate)
        let runningHosts = holders.keys.compactMap { tasks[$0]?.host }
        let plan = scheduler.plan(inQueueOrder: candidates, runningHosts: runningHosts, now: time.now())
        for id in plan.start {
            if let task = tasks[id] { launch(task) }
        }
        if let wakeAt = plan.wakeAt { armWakeUp(at: wakeAt) }
    }

    private func armWakeUp(at date: Date) {
        if let wakeUp, wakeUp.at <= date { return }
        wakeUp?.control.cancel()
        wakeUp = nil
        let control = TransferRunControl()
        let work: @Sendable () async -> Void = { [weak self, time] in
            try? await time.sleepUntil(date.addingTimeInterval(0.001))
            guard !Task.isCancelled else { return }
            await self?.wokeUp()
        }
        guard runner?.submit(TransferRunner.Job(control: control, work: work)) == true else { return }
        wakeUp = (control, date)
    }

    private func wokeUp() {
        wakeUp = nil
        schedule()
    }

    private func launch(_ snapshot: TransferTask) {
        guard let executor = executors[snapshot.kind], let runner else { return }
        var task = snapshot
        task.state = .active
        task.nextAttemptAt = nil
        task.updatedAt = time.now()
        let meter = TransferMeter(startBytes: task.committedBytes, total: task.totalBytes, clock: time.now)
        let context = TransferContext(taskID: task.id, manager: self, meter: meter)
        let id = task.id
        let running = task
        let control = TransferRunControl()
        let (store, worker, lifetime, time) = (store, workerID, configuration.claimLifetime, time)
        // Claimed by its insert and renewed since: held until well after the next renewal, so no
        // other worker can hold it meanwhile, and a renewal that no longer finds it stops the run.
        let heldUntil = claimsHeld[id]
        let held = heldUntil.map { $0 >= time.now().addingTimeInterval(lifetime / 3) }
        let work: @Sendable () async -> Void = { [self] in
            var claim = ClaimAnswer.granted
            var until = heldUntil ?? .distantPast
            if held != true {
                // The claim first, within the run (a slot is held meanwhile): the one write per
                // start. It checks the task's stored state, so a change of it still being written
                // goes first.
                await self.writesSettled(for: id)
                let now = time.now()
                until = now.addingTimeInterval(lifetime)
                do {
                    if try await store.claim(ids: [id], by: worker, until: until, now: now).contains(id) {
                        claim = .granted
                    } else {
                        claim = .denied(stored: try? await store.load(ids: [id]))
                    }
                } catch {
                    claim = .failed(error)
                }
            }
            guard await self.claimed(id: id, claim, until: until, before: snapshot) else { return }
            // Claimed from the store (not by this worker's insert): another worker may have run
            // it before and died, having committed more than this one knew (a shared downloads
            // folder holds those bytes). The run goes on from the stored offset.
            var task = running
            if held != true, let stored = try? await store.load(ids: [id]).first,
                stored.committedBytes > running.committedBytes
            {
                task.committedBytes = stored.committedBytes
                task.totalBytes = stored.totalBytes
                task.etag = stored.etag
                task.lastModified = stored.lastModified
                await self.tookOver(task)
            }
            let result: Result<TransferOutcome, any Error>
            do {
                result = .success(try await executor.run(task, context: context))
            } catch {
                result = .failure(error)
            }
            // Cancelled, but not through its control: the lifecycle ends (a service's shutdown).
            let byShutdown = Task.isCancelled && !control.isCancelled
            await self.finished(id: id, result: result, byShutdown: byShutdown)
        }
        // The runner has closed: the lifecycle is ending and the task stays waiting.
        guard runner.submit(TransferRunner.Job(control: control, work: work)) else { return }
        // Its run holds the claim now (renewed as the run's; released when the run ends).
        claimsHeld[id] = nil
        // Announced now, written once the claim is granted (see `claimed`).
        keep(task)
        hub.publish(.changed(task))
        runs[id] = Run(control: control, meter: meter, intent: nil, lastProgress: (task.committedBytes, time.now(), 0))
    }

    /// Returns once no change of `id` waits to be written (at once, as a rule: a queued task
    /// has none).
    private func writesSettled(for id: Int64) async {
        guard flusher.isPending(id) else { return }
        await flush()
    }

    /// Takes the stored progress of a task another worker ran before this one claimed it.
    private func tookOver(_ task: TransferTask) {
        guard var current = tasks[task.id] else { return }
        current.committedBytes = task.committedBytes
        current.totalBytes = task.totalBytes
        current.etag = task.etag
        current.lastModified = task.lastModified
        current.record("taken over from another node at byte \(task.committedBytes)")
        keep(current)
        hub.publish(.changed(current))
    }

    /// What the store answered a run's claim.
    enum ClaimAnswer: Sendable {
        case granted
        /// Another worker holds the task, or it is no longer waiting there: its stored row, if read.
        case denied(stored: [TransferTask]?)
        case failed(any Error)
    }

    /// The claim of a run's task came back: true when the run goes on.
    ///
    /// Granted, the start is written with the next write (not in a transaction of its own: after
    /// a crash an `active` task and a `waiting` one resume alike, and 1,000 small downloads saved
    /// a thousand transactions). Otherwise the task is not this manager's to run: it goes back to
    /// how it was, unwritten (the row is another worker's), takes over what the store holds if
    /// that worker finished, paused or deleted it, and is not tried again for a while.
    private func claimed(id: Int64, _ claim: ClaimAnswer, until: Date, before: TransferTask) -> Bool {
        guard let run = runs[id] else { return false }
        var stored: [TransferTask]?
        switch claim {
        case .granted:
            runs[id]?.claimed = true
            runs[id]?.claimUntil = until
            flusher.mark(id)
            return true
        case .denied(let rows):
            stored = rows
        case .failed(let error):
            logger.warning(
                "cannot claim a transfer; trying again later", metadata: ["transfer": "\(id)", "error": "\(error)"])
        }
        if run.intent != nil {
            // Stopped (paused, cancelled, shut down) while claiming: settled as the stop asked.
            finished(id: id, result: .failure(CancellationError()))
            return false
        }
        runs.removeValue(forKey: id)
        heldElsewhere[id] = time.now().addingTimeInterval(claimRecheckInterval)
        if let stored, let row = stored.first(where: { $0.id == id }),
            row.state != .waiting && row.state != .active
        {
            keep(row)
            hub.publish(.changed(row))
        } else if let stored, !stored.contains(where: { $0.id == id }) {
            forget(id)
            flusher.forget(id)
            addedHere.remove(id)
            hub.publish(.deleted(id: id))
        } else if var current = tasks[id] {
            current.state = before.state
            current.nextAttemptAt = before.nextAttemptAt
            keep(current)
            hub.publish(.changed(current))
        }
        schedule()
        return false
    }

    /// How long a task another worker holds is left alone: a third of a claim's lifetime.
    private var claimRecheckInterval: TimeInterval { configuration.claimLifetime / 3 }

    /// Cancels a run for `intent` and waits until it has ended and its task's state is settled.
    private func stop(_ id: Int64, intent: StopIntent) async {
        guard let run = runs[id] else { return }
        // What the user asked for wins over what the manager decided by itself (a stall, a requeue).
        switch runs[id]?.intent {
        case nil, .stall?, .requeue?: runs[id]?.intent = intent
        default: break
        }
        run.control.cancel()
        await run.control.ended()
    }

    private func finished(id: Int64, result: Result<TransferOutcome, any Error>, byShutdown: Bool = false) {
        if byShutdown {
            // No new run starts while the rest end.
            stopping = true
            runs[id]?.intent = .shutdown
        }
        guard let run = runs.removeValue(forKey: id) else { return }
        guard var task = tasks[id] else {
            schedule()
            return
        }
        switch run.intent {
        case .pause:
            task.state = .paused
            task.record("paused at byte \(task.committedBytes)")
        case .cancel:
            task.state = .removed
            task.record("cancelled")
        case .delete:
            break
        case .shutdown:
            // Stays active in the store: the next start resumes it.
            break
        case .requeue:
            task.state = .waiting
        case .stall:
            if case .success(let outcome) = result {
                // The last bytes came and the result is in place after all: it stands.
                Self.complete(&task, outcome)
            } else {
                let seconds = Int(configuration.stallTimeout)
                fail(&task, TransferError.transient("no bytes arrived for \(seconds) s (stalled)"))
            }
        case .lost:
            // Another worker runs it now: back to waiting here, unwritten, left alone a while.
            task.state = .waiting
            keep(task)
            hub.publish(.changed(task))
            heldElsewhere[id] = time.now().addingTimeInterval(claimRecheckInterval)
            schedule()
            return
        case nil:
            switch result {
            case .success(let outcome):
                Self.complete(&task, outcome)
            case .failure(let error):
                fail(&task, TransferError.classify(error))
            }
        }
        // A run that gave up its slot committed a checkpoint from which a crash recovers the
        // completion (see `TransferContext.commitFinal`): its end is written with the next write
        // or the ticker's flush, which spares a transaction per file when many small ones finish.
        let recoverable = run.recoverable && task.state == .complete
        // Given up with the write of its last state (never before it, or another worker could
        // claim a finished task from a row that still says waiting).
        flusher.release(id)
        if run.intent != .shutdown { store(task, lazily: recoverable) }
        schedule()
    }

    private static func complete(_ task: inout TransferTask, _ outcome: TransferOutcome) {
        task.state = .complete
        task.destinationName = outcome.resultName
        task.committedBytes = outcome.bytes
        task.totalBytes = outcome.bytes
        task.errorReason = nil
        task.errorClass = nil
        task.retryCount = 0
        task.record("complete (\(outcome.bytes) bytes)")
    }

    private func fail(_ task: inout TransferTask, _ error: TransferError) {
        let failures = task.retryCount + 1
        // Reasons quote URLs and server answers: stored and shown without credentials.
        let reason = SecretRedactor.redact(error.description)
        task.errorReason = reason
        task.errorClass = error.errorClass
        switch scheduler.afterFailure(error, failures: failures, now: time.now(), random: &random) {
        case .retry(let at, let delay):
            task.retryCount = failures
            task.state = .waiting
            task.nextAttemptAt = at
            task.record("attempt failed: \(reason); retry \(failures) in \(String(format: "%.1f", delay)) s")
        case .giveUp:
            task.state = .error
            task.nextAttemptAt = nil
            task.record("failed: \(reason)")
        }
        logger.info(
            "transfer attempt failed",
            metadata: [
                "transfer": "\(task.id)", "reason": "\(reason)", "class": "\(error.errorClass.rawValue)",
                "state": "\(task.state.rawValue)",
            ])
    }

    // MARK: - Progress and stalls

    private func tick() {
        // Changes stored lazily wait at most a tick when nothing else writes.
        startFlushing()
        let now = time.now()
        renewClaimsIfDue(now: now)
        discoverIfDue(now: now)
        if heldElsewhere.values.contains(where: { $0 <= now }) {
            heldElsewhere = heldElsewhere.filter { $0.value > now }
            schedule()
        }
        for (id, run) in runs {
            let reading = run.meter.reading
            let elapsed = now.timeIntervalSince(run.lastProgress.at)
            if reading.bytes != run.lastProgress.bytes, elapsed > 0 {
                let instant = Double(max(0, reading.bytes - run.lastProgress.bytes)) / elapsed
                // Exponential smoothing over roughly the last few ticks.
                let speed = run.lastProgress.speed == 0 ? instant : run.lastProgress.speed * 0.7 + instant * 0.3
                runs[id]?.lastProgress = (reading.bytes, now, speed)
                hub.publish(.progress(Self.progress(id: id, reading: reading, speed: speed)))
            } else if elapsed > 3, run.lastProgress.speed != 0 {
                runs[id]?.lastProgress = (reading.bytes, now, 0)
            }
            // A run that committed its final checkpoint has every byte synced and only puts its
            // result in place (a link, a directory sync, a busy write), maybe done already: no
            // stall. Stopping it there would run the task again, on this node or another.
            // (A run that gave up its slot may still send another request: it can stall.)
            if run.intent == nil, !run.recoverable,
                scheduler.hasStalled(lastByteAt: reading.lastByteAt, now: now)
            {
                runs[id]?.intent = .stall
                run.control.cancel()
            }
        }
    }

    /// Every third of a claim's lifetime while runs hold claims: one statement renews them all,
    /// in a job of the runner (the tick does not wait for the database). A run whose claim was
    /// not renewed lost it (this worker stalled past its lifetime and another took the task
    /// over): it stops without writing.
    private func renewClaimsIfDue(now: Date) {
        let held = runs.filter(\.value.claimed).mapValues { ObjectIdentifier($0.control) }
        let ahead = Set(claimsHeld.keys)
        // Claims still to be given up with a write (one that failed is retried) are renewed too:
        // they are of tasks whose last state is not in the store yet.
        guard !held.isEmpty || !ahead.isEmpty || flusher.holdsReleases, now >= nextRenewal, let runner else {
            return
        }
        nextRenewal = now.addingTimeInterval(claimRecheckInterval)
        let (store, worker) = (store, workerID)
        let until = now.addingTimeInterval(configuration.claimLifetime)
        let work: @Sendable () async -> Void = { [weak self] in
            do {
                let renewed = Set(try await store.renewClaims(by: worker, until: until))
                await self?.renewed(held, ahead: ahead, until: until, still: renewed)
            } catch is CancellationError {
                // The manager is shutting down: its claims expire or are released with its runs.
            } catch {
                self?.logger.warning("cannot renew transfer claims", metadata: ["error": "\(error)"])
            }
        }
        _ = runner.submit(TransferRunner.Job(control: TransferRunControl(), work: work))
    }

    private func renewed(
        _ held: [Int64: ObjectIdentifier], ahead: Set<Int64>, until: Date, still renewed: Set<Int64>
    ) {
        // Claims taken by inserts: an id still held was not released since the renewal was
        // asked for (ids are never inserted twice), so the renewal was the last write of its
        // claim. One the renewal did not find is claimed again at its start.
        for id in ahead where claimsHeld[id] != nil {
            claimsHeld[id] = renewed.contains(id) ? until : nil
        }
        for (id, control) in held {
            guard let run = runs[id], ObjectIdentifier(run.control) == control else { continue }
            if renewed.contains(id) {
                runs[id]?.claimUntil = until
                continue
            }
            logger.warning("another worker took over a running transfer; stopping it", metadata: ["transfer": "\(id)"])
            runs[id]?.intent = .lost
            run.control.cancel()
        }
    }

    private static func progress(id: Int64, reading: TransferMeter.Reading, speed: Double) -> TransferProgress {
        var eta: Double?
        if let total = reading.total, speed > 0 { eta = Double(max(0, total - reading.bytes)) / speed }
        return TransferProgress(
            id: id, bytes: reading.bytes, total: reading.total, bytesPerSecond: speed, etaSeconds: eta)
    }

    // MARK: - Storage

    private func existing(_ id: Int64) throws -> TransferTask {
        guard let task = tasks[id] else { throw TransferError.noTask(id) }
        return task
    }

    /// Every third of a claim's lifetime, with ``Configuration/discoversTasks``: reads the queue
    /// for tasks other workers (nodes of a cluster) added, so this one shows them and runs them
    /// when their claims allow (another node that died holding one). A job of the runner, as a
    /// renewal.
    private func discoverIfDue(now: Date) {
        guard configuration.discoversTasks, configuration.runsStoredTasks, now >= nextDiscovery, let runner else {
            return
        }
        nextDiscovery = now.addingTimeInterval(claimRecheckInterval)
        let store = store
        let work: @Sendable () async -> Void = { [weak self] in
            do {
                let stored = try await store.loadAll()
                await self?.adopt(stored)
            } catch is CancellationError {
            } catch {
                self?.logger.warning("cannot read the transfer queue for new tasks", metadata: ["error": "\(error)"])
            }
        }
        _ = runner.submit(TransferRunner.Job(control: TransferRunControl(), work: work))
    }

    /// Takes in the stored tasks this manager does not know (added by another worker).
    private func adopt(_ stored: [TransferTask]) {
        var added = false
        for var task in stored where tasks[task.id] == nil && task.state != .removed {
            // Another worker's run: waiting here (not written), so this one claims it when that
            // worker's claim expires (it died) and resumes it from its committed offset.
            if task.state == .active { task.state = .waiting }
            keep(task)
            hub.publish(.changed(task))
            added = true
        }
        if added { schedule() }
    }

    /// Every change of `tasks` goes through here, so `waiting` stays its index.
    private func keep(_ task: TransferTask) {
        tasks[task.id] = task
        waiting.update(task)
        if task.state.isFinished { finishWaiters.settle(task.id) }
    }

    private func forget(_ id: Int64) {
        tasks[id] = nil
        claimsHeld[id] = nil
        waiting.remove(id)
        finishWaiters.settle(id)
    }

    /// Keeps `task` as the newest state, announces it, and queues it for the store. `lazily`
    /// leaves it queued until the next write (or `flush()`) instead of starting one: for a change
    /// a crash may lose because the task resumes the same way without it.
    private func store(_ changed: TransferTask, publish: Bool = true, lazily: Bool = false) {
        var task = changed
        task.updatedAt = time.now()
        keep(task)
        if publish { hub.publish(.changed(task)) }
        flusher.mark(task.id)
        // Paused, cancelled or failed before it started: the claim its insert took goes with
        // this write (after it), so another worker may take the task once it is queued again.
        if task.state != .waiting, claimsHeld.removeValue(forKey: task.id) != nil { flusher.release(task.id) }
        if !lazily { startFlushing() }
    }

    /// Starts the writer when something waits to be written and nothing writes (see
    /// ``TransferFlusher`` for why it is a task of its own, awaited by `flush()`).
    /// After a failed write, the ticker waits for ``TransferFlusher/retryAt``; `now` (a flush)
    /// tries at once.
    private func startFlushing(now: Bool = false) {
        guard flusher.writer == nil, flusher.hasWork else { return }
        if !now, let retryAt = flusher.retryAt, time.now() < retryAt { return }
        flusher.writer = Task { await self.flushLoop() }
    }

    private func flushLoop() async {
        while let batch = flusher.takeBatch() {
            let snapshot = batch.ids.compactMap { tasks[$0] }
            do {
                try await store.update(snapshot, releasingClaims: batch.releases, by: workerID)
                flusher.succeeded()
            } catch {
                // Kept for the next write: the claims it releases are renewed meanwhile.
                logger.error("cannot save transfers; trying again shortly", metadata: ["error": "\(error)"])
                for waiter in flusher.failed(batch, at: time.now()) { waiter.resume() }
                break
            }
            for waiter in flusher.wrote(batch.generation) { waiter.resume() }
            // Tasks whose claims were being released may start again.
            if !batch.releases.isEmpty { schedule() }
        }
        for waiter in flusher.writerEnded() { waiter.resume() }
    }

    private func remove(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        await flush()
        try await store.delete(ids: ids)
        for id in ids {
            forget(id)
            flusher.forget(id)
            addedHere.remove(id)
            hub.publish(.deleted(id: id))
        }
    }

    private func discardPartial(of task: TransferTask) async throws {
        guard let executor = executors[task.kind] else { return }
        try await executor.discard(task, context: context(for: task.id))
    }

    private func context(for id: Int64) -> TransferContext {
        TransferContext(taskID: id, manager: self, meter: TransferMeter(startBytes: 0, total: nil))
    }
}
