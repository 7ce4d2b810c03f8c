import Foundation
import Logging
import NIOCore
import Streaming
import Synchronization
import TunerAPI

/// One live channel being watched: one upstream read once into a ring of recent packets, and any
/// number of viewers reading the ring at their own pace.
///
/// The upstream never waits for a viewer: a viewer that falls out of the ring starts again at the
/// newest keyframe (counted as a resync). When the upstream fails, ends, stalls or sends bytes
/// without progress, the session asks its registry for the next upstream (an alternative) and
/// goes on appending to the same ring, so viewers keep their connections: the new upstream is
/// judged on its own bytes (every counter starts again) and viewers go on from a clean join (see
/// ``LivePacketizer``). It ends a few seconds after its last viewer left, when stopped, or when
/// no upstream works.
public final class LiveSession: Sendable {
    public let id: String
    public let channelID: Int64
    public let channelName: String
    public let profile: StreamProfile
    public let startedAt: Date
    let settings: LiveSettings
    let logger: Logger
    private let state: Mutex<State>

    /// Decides what to read after `failed` stopped (the `failures`-th time); nil ends the session.
    typealias NextUpstream = @Sendable (_ failed: LiveUpstream, _ failures: Int) async -> LiveUpstream?

    struct Viewer {
        var cursor: Int64
        var info: LiveViewerInfo
        var priority: Int
        /// Send the newest PAT and PMT before the next bytes (after joining at a keyframe).
        var needsTables: Bool
        var waiter: CheckedContinuation<Void, Never>?
    }

    struct State {
        var ring: LiveRing
        var packetizer = LivePacketizer()
        var viewers: [Int: Viewer] = [:]
        var nextViewerID = 0
        /// Why the session ended; nil while it runs.
        var ended: String?
        /// Why it was asked to stop (DELETE, preemption, shutdown).
        var stopRequested: String?
        var upstream: LiveUpstream?
        var upstreamMeter = LiveRateMeter()
        var downstreamMeter = LiveRateMeter()
        var failovers: [LiveFailoverInfo] = []
        var resyncs = 0
        var lastByte = ContinuousClock.now
        /// When the last whole packet arrived: bytes without packets are not a transport stream.
        var lastPacket = ContinuousClock.now
        var lastProgress = ContinuousClock.now
        /// Continuity errors counted at the start of the current progress window.
        var errorsAtWindowStart = 0
        var windowStart = ContinuousClock.now
        var idleSince: ContinuousClock.Instant?
        var task: Task<Void, Never>?
        var onEnd: (@Sendable (LiveSession) -> Void)?
        /// The channel's time-shift window, when it keeps one: it gets every packet the ring does.
        var window: TimeshiftWindow?
    }

    init(
        id: String, channelID: Int64, channelName: String, profile: StreamProfile, settings: LiveSettings,
        logger: Logger
    ) {
        self.id = id
        self.channelID = channelID
        self.channelName = channelName
        self.profile = profile
        self.startedAt = Date()
        self.settings = settings
        var logger = logger
        logger[metadataKey: "session"] = "\(id)"
        self.logger = logger
        state = Mutex(State(ring: LiveRing(capacity: settings.ringBytes)))
    }

    // MARK: - Running

    /// Names the first upstream before the session starts, so its connection counts at once.
    func prepare(_ first: LiveUpstream) {
        state.withLock { $0.upstream = first }
    }

    /// Writes what the session receives into `window` too (set before the session starts).
    func keep(in window: TimeshiftWindow) {
        state.withLock { $0.window = window }
    }

    /// Starts reading `first` as a task of `work`; `next` picks what follows a failure. `onEnd`
    /// runs once, when the session has ended.
    ///
    /// The task is owned by the live engine's `work` (``LiveSessions``), not left unstructured:
    /// every session of the engine has one lifecycle, and the engine's shutdown cancels and awaits
    /// whatever still runs. The handle is kept too, so ``stopAndWait(_:)`` awaits this one alone.
    func start(
        _ first: LiveUpstream, next: @escaping NextUpstream, work: BackgroundWork,
        onEnd: @escaping @Sendable (LiveSession) -> Void
    ) {
        state.withLock { $0.onEnd = onEnd }
        guard let task = work.start({ [self] in await run(first, next: next) }) else {
            // The engine is shutting down: the session ends before it reads anything.
            finish("the server is shutting down")
            return
        }
        state.withLock { $0.task = task }
    }

    private enum Outcome {
        case failed(String)
        case idle
        case stopped(String)
    }

    private func run(_ first: LiveUpstream, next: NextUpstream) async {
        var upstream = first
        var failures = 0
        var endReason = "the upstream ended"
        while true {
            state.withLock {
                $0.upstream = upstream
                $0.packetizer.reset()
                $0.lastByte = .now
                $0.lastPacket = .now
                $0.lastProgress = .now
                $0.windowStart = .now
                $0.errorsAtWindowStart = 0
            }
            logger.info(
                "live upstream opening", metadata: ["channel": "\(channelID)", "upstream": "\(upstream.label)"])
            let outcome = await read(upstream)
            if case .idle = outcome {
                endReason = "no viewers for \(settings.lingerSeconds) s"
                break
            }
            if case .stopped(let reason) = outcome {
                endReason = reason
                break
            }
            guard case .failed(let reason) = outcome else { break }
            failures += 1
            logger.warning(
                "live upstream failed", metadata: ["upstream": "\(upstream.label)", "reason": "\(reason)"])
            // The window's segment ends with the upstream: the next one starts at a clean join.
            state.withLock { $0.window }?.breakOff()
            guard !Task.isCancelled, let following = await next(upstream, failures) else {
                endReason = "no upstream works: \(reason)"
                break
            }
            state.withLock {
                $0.failovers.append(
                    LiveFailoverInfo(
                        at: Date(), fromChannelID: upstream.channelID, toChannelID: following.channelID, reason: reason)
                )
                if $0.failovers.count > 50 { $0.failovers.removeFirst() }
            }
            upstream = following
        }
        finish(endReason)
    }

    /// Reads one upstream until it fails, the session goes idle or is stopped.
    private func read(_ upstream: LiveUpstream) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask { [self] in
                do {
                    try await upstream.run { [self] buffer in ingest(buffer) }
                    // Something other than TS (a file, a radio stream) ends when its body does.
                    if flushOther() { return .stopped("the upstream's answer ended") }
                    return .failed("the upstream ended the stream")
                } catch is CancellationError {
                    return .stopped("stopped")
                } catch {
                    return .failed(Self.describe(error))
                }
            }
            group.addTask { [self] in await watch() }
            let outcome = await group.next() ?? .stopped("stopped")
            group.cancelAll()
            // A stop or idle decision wins over the error the cancelled upstream reports.
            return outcome
        }
    }

    /// Checks the upstream's health four times a second; returns when it must be left.
    private func watch() async -> Outcome {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let now = ContinuousClock.now
            let verdict: Outcome? = state.withLock { state in
                if let reason = state.stopRequested { return .stopped(reason) }
                if let idle = state.idleSince, idle.duration(to: now) >= .seconds(settings.lingerSeconds) {
                    return .idle
                }
                if state.lastByte.duration(to: now) >= .seconds(settings.stallSeconds) {
                    return .failed("no bytes for \(Self.seconds(settings.stallSeconds)) s (stalled)")
                }
                if state.lastPacket.duration(to: now) >= .seconds(settings.stallSeconds) {
                    return .failed(
                        "bytes but no MPEG-TS packets for \(Self.seconds(settings.stallSeconds)) s "
                            + "(not a transport stream)"
                    )
                }
                if state.lastProgress.duration(to: now) >= .seconds(settings.progressSeconds) {
                    return .failed(
                        "bytes but no new PCR for \(Self.seconds(settings.progressSeconds)) s (no pictures)")
                }
                let errors = state.packetizer.monitor.continuityErrors
                if errors - state.errorsAtWindowStart >= settings.continuityErrorLimit {
                    return .failed(
                        "\(errors - state.errorsAtWindowStart) continuity errors in "
                            + "\(Self.seconds(settings.progressSeconds)) s (packets lost or garbled)")
                }
                if state.windowStart.duration(to: now) >= .seconds(settings.progressSeconds) {
                    state.windowStart = now
                    state.errorsAtWindowStart = errors
                }
                return nil
            }
            if let verdict { return verdict }
        }
        return state.withLock { .stopped($0.stopRequested ?? "stopped") }
    }

    /// Appends an upstream read to the ring and wakes the viewers waiting for it.
    private func ingest(_ buffer: ByteBuffer) {
        let now = ContinuousClock.now
        var kept: (window: TimeshiftWindow, output: LivePacketizer.Output)?
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard state.ended == nil else { return [] }
            let output = state.packetizer.consume(buffer)
            state.upstreamMeter.add(buffer.readableBytes, at: now)
            state.lastByte = now
            if output.progressed { state.lastProgress = now }
            // Packets held back for a clean join after a switch still show the upstream is TS.
            if output.sawPackets { state.lastPacket = now }
            guard output.packets.readableBytes > 0 else { return [] }
            if state.packetizer.format != .transportStream { state.lastPacket = now }
            state.ring.append(output.packets, marks: output.marks)
            if let window = state.window { kept = (window, output) }
            return Self.takeWaiters(&state)
        }
        for waiter in waiters { waiter.resume() }
        if let kept { kept.window.receive(kept.output.packets, marks: kept.output.marks, at: TimeshiftWindow.now()) }
    }

    /// At an upstream's end: hands over bytes kept while the format was undecided; returns whether
    /// the session carries something other than TS.
    private func flushOther() -> Bool {
        let (other, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            let output = state.packetizer.flush()
            if output.packets.readableBytes > 0 {
                state.upstreamMeter.add(0, at: .now)
                state.ring.append(output.packets, marks: [])
            }
            return (state.packetizer.format == .other, Self.takeWaiters(&state))
        }
        for waiter in waiters { waiter.resume() }
        return other
    }

    private static func takeWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var waiters: [CheckedContinuation<Void, Never>] = []
        for id in state.viewers.keys {
            if let waiter = state.viewers[id]?.waiter {
                waiters.append(waiter)
                state.viewers[id]?.waiter = nil
            }
        }
        return waiters
    }

    private func finish(_ reason: String) {
        state.withLock { $0.window }?.breakOff()
        let (waiters, onEnd) = state.withLock { state in
            state.ended = state.ended ?? reason
            let onEnd = state.onEnd
            state.onEnd = nil
            return (Self.takeWaiters(&state), onEnd)
        }
        logger.info("live session ended", metadata: ["channel": "\(channelID)", "reason": "\(reason)"])
        for waiter in waiters { waiter.resume() }
        onEnd?(self)
    }

    /// Asks the session to end (its viewers' streams end after what they have).
    func stop(_ reason: String) {
        state.withLock { state in
            if state.stopRequested == nil { state.stopRequested = reason }
        }
    }

    /// Ends the session and waits for its upstream to close.
    func stopAndWait(_ reason: String) async {
        stop(reason)
        let task = state.withLock { $0.task }
        await task?.value
    }

    /// Why the session ended (nil while it runs): what a viewer that got nothing is told.
    public var endReason: String? { state.withLock { $0.ended } }

    var hasEnded: Bool { state.withLock { $0.ended != nil || $0.stopRequested != nil } }

    // MARK: - Viewers

    /// Adds a viewer, who starts at the newest keyframe (or the start of the stream).
    func join(_ info: LiveViewerInfo, priority: Int) -> Int? {
        state.withLock { state in
            guard state.ended == nil, state.stopRequested == nil else { return nil }
            let id = state.nextViewerID
            state.nextViewerID += 1
            let keyframe = state.ring.hasKeyframe
            state.viewers[id] = Viewer(
                cursor: state.ring.joinOffset, info: info, priority: priority, needsTables: keyframe, waiter: nil)
            state.idleSince = nil
            return id
        }
    }

    /// Removes a viewer; the session lingers for ``LiveSettings/lingerSeconds`` after the last.
    func leave(_ viewerID: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let waiter = state.viewers.removeValue(forKey: viewerID)?.waiter
            if state.viewers.isEmpty { state.idleSince = .now }
            return waiter
        }
        waiter?.resume()
    }

    private enum Step {
        case data([ByteBuffer])
        case wait
        case end
    }

    /// The next bytes for viewer `viewerID`: waits for new ones; nil when the session has ended
    /// (or the viewer left).
    func read(_ viewerID: Int) async -> [ByteBuffer]? {
        while true {
            let now = ContinuousClock.now
            let step: Step = state.withLock { state in
                guard var viewer = state.viewers[viewerID] else { return .end }
                if viewer.cursor < state.ring.start {
                    // Fell out of the ring: start again where a player can decode.
                    viewer.cursor = state.ring.joinOffset
                    viewer.needsTables = state.ring.hasKeyframe
                    state.resyncs += 1
                }
                guard viewer.cursor < state.ring.end else {
                    state.viewers[viewerID] = viewer
                    return state.ended != nil || state.stopRequested != nil ? .end : .wait
                }
                var parts: [ByteBuffer] = []
                if viewer.needsTables, let tables = state.ring.tablesPrefix(before: viewer.cursor) {
                    parts.append(tables)
                }
                viewer.needsTables = false
                let data = state.ring.read(from: viewer.cursor, limit: 256 << 10)
                let count = data.reduce(0) { $0 + $1.readableBytes }
                viewer.cursor += Int64(count)
                parts += data
                let sent = parts.reduce(0) { $0 + $1.readableBytes }
                viewer.info.bytes &+= Int64(sent)
                state.downstreamMeter.add(sent, at: now)
                state.viewers[viewerID] = viewer
                return .data(parts)
            }
            switch step {
            case .data(let parts): return parts
            case .end: return nil
            case .wait: await waitForBytes(viewerID)
            }
            if Task.isCancelled { return nil }
        }
    }

    private func waitForBytes(_ viewerID: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard let viewer = state.viewers[viewerID], state.ended == nil, state.stopRequested == nil,
                        viewer.cursor >= state.ring.end, !Task.isCancelled
                    else { return true }
                    state.viewers[viewerID]?.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.viewers[viewerID]?.waiter = nil }
                return state.viewers[viewerID]?.waiter
            }
            waiter?.resume()
        }
    }

    // MARK: - What the registry and the API see

    /// The source whose connection the session holds now.
    var sourceID: Int64? { state.withLock { $0.ended == nil ? $0.upstream?.sourceID : nil } }

    var viewerCount: Int { state.withLock { $0.viewers.count } }

    /// The highest priority among the viewers: what preemption compares.
    var priority: Int { state.withLock { $0.viewers.values.map(\.priority).max() ?? Int.min } }

    /// Who watches now.
    var viewerInfos: [LiveViewerInfo] { state.withLock { $0.viewers.values.map(\.info) } }

    func viewers(where predicate: (LiveViewerInfo) -> Bool) -> Int {
        state.withLock { $0.viewers.values.filter { predicate($0.info) }.count }
    }

    /// The session as `GET /api/v1/streams` lists it.
    var info: LiveStreamInfo {
        let now = ContinuousClock.now
        return state.withLock { state in
            LiveStreamInfo(
                id: id, channelID: channelID, channelName: channelName, profile: profile.rawValue,
                upstreamChannelID: state.upstream?.channelID, sourceID: state.upstream?.sourceID,
                sourceName: state.upstream?.sourceName,
                viewers: state.viewers.keys.sorted().compactMap { state.viewers[$0]?.info },
                upstreamBytesPerSecond: state.upstreamMeter.rate(at: now),
                downstreamBytesPerSecond: state.downstreamMeter.rate(at: now),
                upstreamBytes: state.upstreamMeter.total, downstreamBytes: state.downstreamMeter.total,
                startedAt: startedAt, failovers: state.failovers, resyncs: state.resyncs,
                continuityErrors: state.packetizer.monitor.continuityErrors)
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? LiveUpstreamError { return error.description }
        // Errors of the HTTP client name the failure, never the URL.
        return "the upstream failed: \(String(describing: error).prefix(200))"
    }
}

/// One viewer's place in a live session: read until nil, then close (or let it go).
public final class LiveViewer: Sendable {
    public let session: LiveSession
    let id: Int
    private let closed = Mutex(false)

    init(session: LiveSession, id: Int) {
        self.session = session
        self.id = id
    }

    /// The next bytes of the stream; nil when it has ended.
    public func next() async -> [ByteBuffer]? {
        await session.read(id)
    }

    /// Leaves the session (idempotent).
    public func close() {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { session.leave(id) }
    }

    deinit { close() }
}
