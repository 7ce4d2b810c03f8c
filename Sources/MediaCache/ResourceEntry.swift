import Foundation
import NIOCore
import Synchronization

/// The live state of one cached resource, shared by every request, fetch and preload of it.
///
/// All decisions about a resource (read from disk, wait for a fetch in flight, or start a new
/// fetch) are made under one lock, so two readers of a missing range can never both fetch it.
/// Waiting happens outside the lock on continuations resumed whenever bytes arrive.
final class ResourceEntry: Sendable {
    let key: String
    let path: String
    private let state: Mutex<State>

    /// A fetch in flight, as the planner sees it.
    struct FetchRecord {
        var id: Int
        var generation: Int
        /// Where its bytes start and the offset it will write next.
        var start: Int64
        var position: Int64
        /// It stops before this offset (set lower when a reader seeks past it).
        var end: Int64
        var attached: Int
        var task: Task<Void, Never>?
        /// The origin answered 200: its body is the whole resource from byte 0.
        var whole = false
        /// When the fetch was registered, while it waits for its response head and nothing has
        /// told yet whether the origin honours Range (see `State.rangesKnown`); nil otherwise.
        var headSince: ContinuousClock.Instant?
    }

    struct State {
        var url: String
        /// The URL that answered, after redirects.
        var finalURL: String?
        /// Headers of the most recent request, used by fetches that fill gaps.
        var upstreamHeaders: [(String, String)] = []
        var meta: ResourceMeta?
        var generation = 0
        var file: DataFile?
        /// Bytes written to the data file in this generation (a superset of `durable`).
        var available = SpanSet()
        /// Bytes synced and recorded in the index.
        var durable = SpanSet()
        var fetches: [Int: FetchRecord] = [:]
        var nextID = 0
        /// Bumped on every change a waiter may care about, so no wake-up is lost between
        /// planning and waiting.
        var changes: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var users = 0
        var lastAccess = Date()
        var pinned = false
        var probing = false
        var evicted = false
        /// The chunks fetches wrote most recently (at most ``recentChunkBytes``), so a reader
        /// that follows a fetch takes the bytes from memory instead of reading them back.
        var recentChunks: [RecentChunk] = []
        var recentBytes = 0
        /// The last failure of a fetch, per generation, for readers to report.
        var lastFailure: (any Error)?
        var failures: UInt64 = 0
        /// The origin answered a range request with the whole body: every fetch reads from byte
        /// 0, so readers wait for the one in flight rather than start others (a storm of full
        /// downloads otherwise). Cleared when the origin answers a range with 206 again.
        var ignoresRanges = false
        /// An answer to a range request has told whether the origin honours Range (206) or
        /// ignores it (200). Until then a fetch waiting for its head holds the head lock: a reader
        /// that would start another fetch waits for that head first (see ``nextStep``).
        var rangesKnown = false
    }

    /// A chunk as a fetch wrote it to the data file.
    struct RecentChunk {
        let offset: Int64
        let generation: Int
        let buffer: ByteBuffer
    }

    /// Bytes of recent chunks kept per resource while fetches run.
    static let recentChunkBytes = 1 << 20

    /// What a reader should do next at its position.
    enum ReadStep {
        /// `count` bytes are on disk from the position.
        case read(DataFile, count: Int64)
        /// The bytes at the position, still in memory from the fetch that wrote them (a copy of
        /// what the data file holds there).
        case memory(ByteBuffer)
        /// A fetch in flight will bring the bytes: wait for the next change after `changes`.
        case wait(changes: UInt64)
        /// A fetch is waiting for the head that tells whether the origin honours Range: wait for
        /// the next change after `changes`, but not beyond `until`, then plan again.
        case waitForHead(changes: UInt64, until: ContinuousClock.Instant)
        /// The caller must start a fetch of `range` (it is registered and attached already).
        case fetch(id: Int, range: Range<Int64>, meta: ResourceMeta, generation: Int)
        /// The resource changed or was evicted since the reader started.
        case changed
    }

    init(key: String, path: String, url: String) {
        self.key = key
        self.path = path
        self.state = Mutex(State(url: url))
    }

    init(stored: StoredResource, path: String) {
        self.key = stored.key
        self.path = path
        var state = State(url: stored.url)
        state.finalURL = stored.finalURL
        state.meta = stored.meta
        state.available = stored.spans
        state.durable = stored.spans
        state.lastAccess = stored.lastAccess
        state.pinned = stored.pinned
        self.state = Mutex(state)
    }

    // MARK: - Snapshots

    var meta: ResourceMeta? { state.withLock { $0.meta } }
    var durableBytes: Int64 { state.withLock { $0.durable.count } }
    var generation: Int { state.withLock { $0.generation } }
    var url: String { state.withLock { $0.url } }
    var finalURL: String? { state.withLock { $0.finalURL } }

    struct Snapshot {
        var key: String
        var url: String
        /// The URL that answered, after redirects.
        var finalURL: String?
        /// Headers of the most recent request, used by fetches that fill gaps.
        var upstreamHeaders: [(String, String)] = []
        var meta: ResourceMeta?
        var durableBytes: Int64
        var durable: SpanSet
        var lastAccess: Date
        var inUse: Bool
        var pinned: Bool
        var activeFetches: Int
    }

    var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(
                key: key, url: state.url, meta: state.meta, durableBytes: state.durable.count, durable: state.durable,
                lastAccess: state.lastAccess, inUse: state.users > 0 || !state.fetches.isEmpty, pinned: state.pinned,
                activeFetches: state.fetches.count
            )
        }
    }

    // MARK: - Users and probing

    /// Marks the resource in use (it is not evicted while used) and touches its access time.
    func beginUse() {
        state.withLock {
            $0.users += 1
            $0.lastAccess = Date()
        }
    }

    func endUse() {
        state.withLock {
            $0.users -= 1
            $0.lastAccess = Date()
        }
    }

    func setPinned(_ pinned: Bool) { state.withLock { $0.pinned = pinned } }

    enum ProbeStep {
        case known(ResourceMeta, generation: Int)
        case probe
        case wait(changes: UInt64)
    }

    /// The metadata and its generation when they are known, without starting a probe (see
    /// ``metaOrProbe()``).
    func knownMeta() -> (meta: ResourceMeta, generation: Int)? {
        state.withLock { state in state.meta.map { ($0, state.generation) } }
    }

    /// Whether the resource's length and validators are known; if not, exactly one caller is told
    /// to ask the origin, and the rest wait for its answer.
    func metaOrProbe() -> ProbeStep {
        state.withLock { state in
            if let meta = state.meta { return .known(meta, generation: state.generation) }
            if state.probing { return .wait(changes: state.changes) }
            state.probing = true
            return .probe
        }
    }

    /// Ends a probe that did not produce a cacheable response.
    func endProbe() {
        let waiters = state.withLock { state in
            state.probing = false
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    // MARK: - Adopting origin responses

    enum Adoption {
        /// The bytes are the current version: write them from `bodyStart`.
        case same(file: DataFile, generation: Int)
        /// The resource changed (or is new): the old bytes are dropped and a new file started.
        case replaced(file: DataFile, generation: Int, droppedBytes: Int64)
        /// The entry was evicted meanwhile; the response must not be written.
        case gone
    }

    /// Takes the metadata of an origin response, deciding whether its bytes belong to the
    /// version already cached. A different version starts a new generation: readers of the old
    /// one fail rather than mix bytes of two versions.
    ///
    /// With `fetchFrom`, the response's own fetch is registered in the same critical section, so
    /// no reader woken here can miss it and fetch the same bytes again.
    func adopt(meta: ResourceMeta, url: String, finalURL: String?, fetchFrom: Int64? = nil) throws -> (
        Adoption, fetchID: Int?
    ) {
        var fetchID: Int?
        let (adoption, waiters): (Adoption, [CheckedContinuation<Void, Never>]) = try state.withLock { state in
            defer {
                if let start = fetchFrom, let meta = state.meta, !state.evicted {
                    let id = state.nextID
                    state.nextID += 1
                    state.fetches[id] = FetchRecord(
                        id: id, generation: state.generation, start: start, position: start, end: meta.length,
                        attached: 1, task: nil, headSince: state.rangesKnown ? nil : .now)
                    fetchID = id
                }
            }
            if state.evicted { return (.gone, []) }
            state.url = url
            state.finalURL = finalURL
            if let current = state.meta, current.isSameVersion(as: meta),
                let file = state.file ?? (try? DataFile(path: path, create: false))
            {
                state.file = file
                state.probing = false
                return (.same(file: file, generation: state.generation), state.takeWaiters())
            }
            // New or changed: a fresh inode, so exported links and old readers keep old bytes.
            unlink(path)
            let file = try DataFile(path: path, create: true)
            let dropped = state.durable.count
            state.meta = meta
            state.generation += 1
            state.file = file
            state.available = SpanSet()
            state.durable = SpanSet()
            state.recentChunks = []
            state.recentBytes = 0
            for id in state.fetches.keys { state.fetches[id]?.task?.cancel() }
            state.fetches = [:]
            state.probing = false
            return (.replaced(file: file, generation: state.generation, droppedBytes: dropped), state.takeWaiters())
        }
        waiters.forEach { $0.resume() }
        return (adoption, fetchID)
    }

    // MARK: - Planning reads

    /// Decides the next step of a reader at `position` that needs bytes up to `end`.
    /// `attached` holds the fetches this reader keeps alive; it is updated here.
    /// A new fetch ends where the reader's range ends: an open-ended read fetches to the end of
    /// the resource (stopped when the reader leaves), a bounded one exactly what it asked for.
    ///
    /// The head lock: until an answer to a range request has said whether the origin honours
    /// Range, a reader that would start a fetch while another fetch waits for its head waits for
    /// that head (at most `headWait` after the fetch began), then plans again with what it said:
    /// 206 lets every reader fetch its own range in parallel, 200 makes them all wait for the one
    /// whole body. Without it, ten concurrent cold ranges through a fast origin that ignores Range
    /// started up to ten fetches before any head arrived; each got 200 and the whole file, and the
    /// dropped ones still cost what the loopback socket buffers took before the close: 1.23× to
    /// 1.47× the file at the origin in scripts/bench-range-ignoring, up to 3× in HeadLockTests
    /// (nginx's proxy_cache_lock: 1.00×). The cost is one head's latency for concurrent cold
    /// readers of an origin that honours Range, until its first 206.
    func nextStep(
        at position: Int64, until rangeEnd: Int64, generation: Int, attached: inout Set<Int>, seekThreshold: Int64,
        headWait: Duration = .seconds(20)
    ) -> ReadStep {
        state.withLock { state in
            guard !state.evicted, state.generation == generation, let meta = state.meta else { return .changed }
            // Closed while idle (see closeFileIfIdle): reopen; the bytes are still there.
            if state.file == nil { state.file = try? DataFile(path: path, create: false) }
            let held = state.available.contiguousCount(from: position)
            if held > 0, let file = state.file {
                for chunk in state.recentChunks.reversed()
                where chunk.generation == generation
                    && chunk.offset <= position && position < chunk.offset + Int64(chunk.buffer.readableBytes)
                {
                    let skip = Int(position - chunk.offset)
                    let length = Int(min(Int64(chunk.buffer.readableBytes - skip), held, rangeEnd - position))
                    if let slice = chunk.buffer.getSlice(at: chunk.buffer.readerIndex + skip, length: length) {
                        return .memory(slice)
                    }
                }
                return .read(file, count: held)
            }
            // An origin that ignores Range sends every fetch from byte 0, so a second fetch would
            // only bring the same bytes again: while any fetch runs, wait for it. The whole one
            // reaches every position; one not answered yet either becomes whole (200) or proves
            // that the origin honours ranges again (206, which clears the flag and wakes us).
            if state.ignoresRanges {
                let running = state.fetches.values.filter { $0.generation == generation }
                if let fetch = running.first(where: { $0.whole }) ?? running.first {
                    if !attached.contains(fetch.id) {
                        attached.insert(fetch.id)
                        state.fetches[fetch.id]?.attached += 1
                    }
                    return .wait(changes: state.changes)
                }
            }
            // A fetch that will reach this position soon: wait for it.
            for (id, fetch) in state.fetches
            where fetch.generation == generation
                && fetch.start <= position && position < fetch.end
                && position - fetch.position <= seekThreshold
            {
                if !attached.contains(id) {
                    attached.insert(id)
                    state.fetches[id]?.attached += 1
                }
                return .wait(changes: state.changes)
            }
            // The head lock (see above); not attached: the fetch's own range is not this reader's.
            if !state.rangesKnown {
                let now = ContinuousClock.now
                let deadlines = state.fetches.values.compactMap { fetch in
                    fetch.generation == generation ? fetch.headSince.map { $0 + headWait } : nil
                }
                if let until = deadlines.filter({ $0 > now }).min() {
                    return .waitForHead(changes: state.changes, until: until)
                }
            }
            // Otherwise fetch from here to the next bytes held or already on their way, or the end.
            var end = min(meta.length, rangeEnd)
            if let nextHeld = state.available.nextHeldOffset(from: position) { end = min(end, nextHeld) }
            for (id, fetch) in state.fetches where fetch.generation == generation && fetch.end > position {
                if fetch.start > position {
                    end = min(end, fetch.start)
                } else {
                    // A fetch too far behind this position: it stops here, this one takes over.
                    state.fetches[id]?.end = position
                }
            }
            guard end > position, state.file != nil else { return .changed }
            let id = state.nextID
            state.nextID += 1
            state.fetches[id] = FetchRecord(
                id: id, generation: generation, start: position, position: position, end: end, attached: 1, task: nil,
                headSince: state.rangesKnown ? nil : .now)
            attached.insert(id)
            return .fetch(id: id, range: position..<end, meta: meta, generation: generation)
        }
    }

    /// The data file, when every byte of `range` is written to it in `generation`: a reader of
    /// those bytes needs no plan, no fetch and no wait. Never starts or joins a fetch.
    func fileHolding(_ range: Range<Int64>, generation: Int) -> DataFile? {
        state.withLock { state in
            guard !state.evicted, state.generation == generation, state.meta != nil,
                state.available.contiguousCount(from: range.lowerBound) >= range.upperBound - range.lowerBound
            else { return nil }
            // Closed while idle (see closeFileIfIdle): reopen; the bytes are still there.
            if state.file == nil { state.file = try? DataFile(path: path, create: false) }
            return state.file
        }
    }

    /// Records that fetch `id` got the whole body (a 200) and, when it had asked for a range,
    /// that the origin ignores Range (see `State.ignoresRanges`): the fetch now covers the
    /// resource from byte 0 to its end and readers wait for it.
    ///
    /// Returns false when another whole fetch of the same version is already under way: this one
    /// would only bring its bytes again, so the caller drops it (its readers, woken when it ends,
    /// wait for the other), and the other is told to go on to the end.
    func noteWholeBody(fetch id: Int, askedForRange: Bool) -> Bool {
        let (keep, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.fetches[id]?.headSince = nil
            if askedForRange {
                state.ignoresRanges = true
                state.rangesKnown = true
            }
            guard let meta = state.meta, let fetch = state.fetches[id] else { return (false, []) }
            if let other = state.fetches.values.first(where: {
                $0.id != id && $0.whole && $0.generation == fetch.generation
            }) {
                state.fetches[other.id]?.end = meta.length
                return (false, state.takeWaiters())
            }
            state.fetches[id]?.whole = true
            state.fetches[id]?.start = 0
            state.fetches[id]?.position = 0
            state.fetches[id]?.end = meta.length
            return (true, state.takeWaiters())
        }
        waiters.forEach { $0.resume() }
        return keep
    }

    /// Records that the origin answered a range with 206: it honours Range (again), so readers
    /// ahead of a whole fetch, and readers waiting for this head (the head lock), may fetch their
    /// own ranges.
    func noteHonoursRanges() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.ignoresRanges || !state.rangesKnown else { return [] }
            state.ignoresRanges = false
            state.rangesKnown = true
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// Whether a fetch goes on once nobody reads it: a whole body from an origin that ignores
    /// Range does, as nginx's proxy_cache goes on filling a cacheable response after the client
    /// left: stopping it would make the next read of any later byte fetch everything before it
    /// again. Other fetches stop (a range is cheap to ask for again).
    private static func outlivesReaders(_ fetch: FetchRecord, in state: State) -> Bool {
        fetch.whole && state.ignoresRanges
    }

    func setTask(_ task: Task<Void, Never>, for id: Int) {
        let cancel = state.withLock { state -> Bool in
            guard let fetch = state.fetches[id] else { return true }
            state.fetches[id]?.task = task
            return fetch.attached == 0 && !Self.outlivesReaders(fetch, in: state)
        }
        if cancel { task.cancel() }
    }

    /// Suspends until something changes after `changes` (or the task is cancelled).
    func waitForChange(after changes: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.changes != changes || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume()
        }
    }

    /// Suspends until something changes after `changes`, or until `deadline` (or cancellation).
    func waitForChange(after changes: UInt64, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForChange(after: changes) }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Releases a reader's fetches; a fetch nobody waits for any more is cancelled, so a player
    /// that closed its connection stops costing origin bandwidth.
    func detach(_ ids: Set<Int>) {
        let (tasks, waiters) = state.withLock {
            state -> ([Task<Void, Never>], [CheckedContinuation<Void, Never>]) in
            var cancelled: [Task<Void, Never>] = []
            var orphaned = false
            for id in ids {
                guard var fetch = state.fetches[id] else { continue }
                fetch.attached -= 1
                state.fetches[id] = fetch
                guard fetch.attached <= 0 else { continue }
                if Self.outlivesReaders(fetch, in: state) { continue }
                if let task = fetch.task {
                    cancelled.append(task)
                    // A cancelled fetch brings no head: readers waiting for it plan again now.
                    if fetch.headSince != nil {
                        state.fetches[id]?.headSince = nil
                        orphaned = true
                    }
                } else {
                    // Registered but never started (its reader left first): drop it, or readers
                    // would wait for bytes nobody fetches.
                    state.fetches[id] = nil
                    orphaned = true
                }
            }
            return (cancelled, orphaned ? state.takeWaiters() : [])
        }
        tasks.forEach { $0.cancel() }
        waiters.forEach { $0.resume() }
    }

    // MARK: - Fetch progress

    /// Whether the fetch should keep writing at `position`.
    func shouldContinue(fetch id: Int, at position: Int64) -> Bool {
        state.withLock { state in
            guard let fetch = state.fetches[id], !state.evicted, fetch.generation == state.generation else {
                return false
            }
            return position < fetch.end
        }
    }

    /// Records bytes written by a fetch and wakes the readers waiting for them.
    func didWrite(fetch id: Int, range: Range<Int64>, generation: Int, buffer: ByteBuffer? = nil) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.generation == generation else { return [] }
            state.available.insert(range)
            if let buffer, buffer.readableBytes == range.count {
                state.recentChunks.append(RecentChunk(offset: range.lowerBound, generation: generation, buffer: buffer))
                state.recentBytes += buffer.readableBytes
                var drop = 0
                while state.recentBytes > Self.recentChunkBytes, drop < state.recentChunks.count - 1 {
                    state.recentBytes -= state.recentChunks[drop].buffer.readableBytes
                    drop += 1
                }
                if drop > 0 { state.recentChunks.removeFirst(drop) }
            }
            state.fetches[id]?.position = range.upperBound
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// Records bytes that are now synced; returns the durable spans to store with the version they
    /// belong to, or nil when the generation moved on and they no longer matter.
    func didSync(range: Range<Int64>, generation: Int) -> (spans: SpanSet, meta: ResourceMeta)? {
        state.withLock { state in
            guard state.generation == generation, !state.evicted, !range.isEmpty, let meta = state.meta else {
                return nil
            }
            state.durable.insert(range)
            return (state.durable, meta)
        }
    }

    /// Ends a fetch, waking readers so they can continue, retry or fail.
    func didFinish(fetch id: Int, error: (any Error)?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fetches.removeValue(forKey: id)
            if state.fetches.isEmpty {
                // Every reader can reach what is left from the data file: free the memory.
                state.recentChunks = []
                state.recentBytes = 0
            }
            if let error {
                state.lastFailure = error
                state.failures += 1
            }
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// The number of fetch failures so far and the last one, so a reader can tell whether the
    /// fetch it waited for failed.
    var failureState: (count: UInt64, last: (any Error)?) {
        state.withLock { ($0.failures, $0.lastFailure) }
    }

    // MARK: - Eviction and export

    /// Marks the entry evicted unless it is in use or pinned; returns whether it was.
    func evictIfIdle() -> Bool {
        let (evicted, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard state.users == 0, state.fetches.isEmpty, !state.pinned, !state.probing else { return (false, []) }
            state.evicted = true
            state.file = nil
            state.recentChunks = []
            state.recentBytes = 0
            return (true, state.takeWaiters())
        }
        waiters.forEach { $0.resume() }
        return evicted
    }

    /// Closes the data file of an idle entry (no reader, fetch or probe) to free its descriptor;
    /// the next read reopens it. Returns whether a file was closed.
    func closeFileIfIdle() -> Bool {
        state.withLock { state in
            guard state.file != nil, state.users == 0, state.fetches.isEmpty, !state.probing, !state.evicted else {
                return false
            }
            state.file = nil
            state.recentChunks = []
            state.recentBytes = 0
            return true
        }
    }

    /// Evicts regardless of use (for `clear`): running fetches are cancelled and readers fail.
    func evictNow() {
        let (tasks, waiters) = state.withLock {
            state -> ([Task<Void, Never>], [CheckedContinuation<Void, Never>]) in
            state.evicted = true
            state.file = nil
            state.recentChunks = []
            state.recentBytes = 0
            let tasks = state.fetches.values.compactMap(\.task)
            state.fetches = [:]
            return (tasks, state.takeWaiters())
        }
        tasks.forEach { $0.cancel() }
        waiters.forEach { $0.resume() }
    }

    /// Opens the data file of an entry loaded from the index, if it is not open yet. Returns
    /// false when the file is gone (the entry must then be dropped).
    func openFileIfNeeded() -> Bool {
        state.withLock { state in
            if state.file != nil { return true }
            guard state.meta != nil, let file = try? DataFile(path: path, create: false) else { return false }
            // Spans beyond the file's end cannot be true (the file was cut short): forget them.
            let size = file.size
            state.available.truncate(at: size)
            state.durable.truncate(at: size)
            state.file = file
            return true
        }
    }

    var isEvicted: Bool { state.withLock { $0.evicted } }
    /// Whether the entry holds its data file open.
    var hasOpenFile: Bool { state.withLock { $0.file != nil } }
}

extension ResourceEntry.State {
    mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        changes &+= 1
        let taken = Array(waiters.values)
        waiters = [:]
        return taken
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ResourceEntry {
    /// Remembers the URL and headers of the latest request: gap fills use them, so a player's new
    /// session token (with the token ignored in cache keys) is what reaches the origin.
    func setLatestRequest(url: String, headers: [(String, String)]) {
        state.withLock {
            $0.url = url
            $0.upstreamHeaders = headers
        }
    }
    var upstreamHeaders: [(String, String)] { state.withLock { $0.upstreamHeaders } }

    /// The data file of `generation`, if that is still the current one.
    func currentFile(generation: Int) -> DataFile? {
        state.withLock { state in
            guard state.generation == generation, !state.evicted else { return nil }
            if state.file == nil, state.meta != nil { state.file = try? DataFile(path: path, create: false) }
            return state.file
        }
    }

    /// Cancels every fetch in flight (at shutdown) and returns their tasks, which end after
    /// recording what they synced.
    func cancelAllFetches() -> [Task<Void, Never>] {
        let tasks = state.withLock { $0.fetches.values.compactMap(\.task) }
        tasks.forEach { $0.cancel() }
        return tasks
    }
}
