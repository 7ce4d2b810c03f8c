import Foundation
import MediaFormats
import Synchronization

/// The server's live events, for the web app and `tuner watch`: every change gets the next
/// sequence number and goes to each subscriber of its topic; the newest events stay in a bounded
/// backlog, so a client that reconnects with its last sequence number gets what it missed (or a
/// `resync` when that is gone, or when the server restarted: its epoch differs).
///
/// A subscriber never holds the hub back or grows without bound: its queue keeps one event per
/// key (a newer `transfer:7` progress replaces the one not yet read), and a queue that still
/// outgrows its limit is replaced by a single `resync` (the client reloads its state).
public final class EventHub: Sendable {
    /// This run's identity: random, so a restarted server never continues an old sequence.
    public let epoch: String
    let backlogLimit: Int
    let queueLimit: Int
    private let state = Mutex(State())
    /// In a cluster: where published events go (the cluster's log), to come back through
    /// ``deliver(_:)`` with the cluster's sequence numbers.
    private let sink = Mutex<(@Sendable (EventTopic, String, String?, [UInt8]) -> Void)?>(nil)

    struct State {
        var next: UInt64 = 1
        var backlog: [ServerEvent] = []
        var subscribers: [UUID: EventQueue] = [:]
    }

    public init(backlogLimit: Int = 1024, queueLimit: Int = 256, epoch: String? = nil) {
        self.backlogLimit = max(1, backlogLimit)
        self.queueLimit = max(2, queueLimit)
        self.epoch = epoch ?? String(UInt64.random(in: 1...UInt64.max), radix: 36)
    }

    /// Publishes an event: `data` is its JSON (encoded once, shared by every subscriber).
    @discardableResult
    public func publish(_ topic: EventTopic, _ type: String, key: String? = nil, data: [UInt8]) -> UInt64 {
        if let sink = sink.withLock({ $0 }) {
            // The cluster numbers it; it reaches the subscribers when the log delivers it back.
            sink(topic, type, key, data)
            return 0
        }
        // Queues are filled under the hub's lock, so every subscriber sees events in sequence order.
        let (event, wake) = state.withLock { state -> (ServerEvent, [EventQueue.Wake]) in
            let event = ServerEvent(sequence: state.next, topic: topic, type: type, key: key, data: data)
            state.next &+= 1
            state.backlog.append(event)
            if state.backlog.count > backlogLimit { state.backlog.removeFirst(state.backlog.count - backlogLimit) }
            return (event, state.subscribers.values.compactMap { $0.topics.contains(topic) ? $0.enqueue(event) : nil })
        }
        for waiter in wake { waiter.resume() }
        return event.sequence
    }

    /// Publishes `value` encoded as JSON.
    @discardableResult
    public func publish(_ topic: EventTopic, _ type: String, key: String? = nil, value: some Encodable) -> UInt64 {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every subscriber sees it: no provider secret (a download's URL, a header) goes out.
        let data = (try? encoder.encode(value)).map { [UInt8](JSONSecretRedactor.redact($0)) } ?? []
        return publish(topic, type, key: key, data: data)
    }

    /// Sends what is published from now on to `sink` (a cluster's log) instead of the subscribers.
    func forward(to sink: @escaping @Sendable (EventTopic, String, String?, [UInt8]) -> Void) {
        self.sink.withLock { $0 = sink }
    }

    /// An event of the cluster's log, with the cluster's number, in the log's order: to the
    /// backlog and every subscriber of its topic. An event older than the newest delivered is
    /// ignored.
    func deliver(_ event: ServerEvent) {
        let wake = state.withLock { state -> [EventQueue.Wake] in
            guard event.sequence >= state.next else { return [] }
            state.next = event.sequence &+ 1
            state.backlog.append(event)
            if state.backlog.count > backlogLimit { state.backlog.removeFirst(state.backlog.count - backlogLimit) }
            return state.subscribers.values.compactMap { $0.topics.contains(event.topic) ? $0.enqueue(event) : nil }
        }
        for waiter in wake { waiter.resume() }
    }

    /// The sequence number the next event will get.
    public var nextSequence: UInt64 { state.withLock { $0.next } }

    /// A subscription to `topics`. With `resumeAfter` (the last sequence number a client saw, and
    /// the epoch it saw it in), what it missed comes first — or a `resync` when the backlog no
    /// longer reaches back that far or the epoch is another run's.
    public func subscribe(topics: Set<EventTopic>, resumeAfter: (epoch: String, sequence: UInt64)? = nil)
        -> EventSubscription
    {
        let queue = EventQueue(topics: topics.union([.server]), limit: queueLimit)
        let id = UUID()
        state.withLock { state in
            state.subscribers[id] = queue
            guard let resumeAfter else { return }
            // Everything after `sequence` must still be held: the oldest held is at most one past it.
            guard resumeAfter.epoch == epoch, resumeAfter.sequence < state.next,
                resumeAfter.sequence &+ 1 >= (state.backlog.first?.sequence ?? state.next)
            else {
                let reason = resumeAfter.epoch == epoch ? "missed" : "restart"
                _ = queue.enqueue(Self.resync(sequence: state.next &- 1, reason: reason))
                return
            }
            for event in state.backlog where event.sequence > resumeAfter.sequence && queue.topics.contains(event.topic)
            {
                _ = queue.enqueue(event)
            }
        }
        return EventSubscription(queue: queue) { [weak self] in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
    }

    /// How many subscribers are connected.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A `resync` event: the client's view is stale, it should reload what it shows. It carries the
    /// sequence from which the client goes on.
    static func resync(sequence: UInt64, reason: String) -> ServerEvent {
        ServerEvent(
            sequence: sequence, topic: .server, type: "resync", key: nil, data: Array(#"{"reason":"\#(reason)"}"#.utf8))
    }
}

/// One subscriber's events not yet read: at most one per key, at most `limit` in all.
final class EventQueue: Sendable {
    let topics: Set<EventTopic>
    let limit: Int
    private let state = Mutex(QueueState())

    struct QueueState {
        var events: [ServerEvent] = []
        var waiter: CheckedContinuation<ServerEvent?, Never>?
        var closed = false
    }

    init(topics: Set<EventTopic>, limit: Int) {
        self.topics = topics
        self.limit = limit
    }

    /// A reader to wake after the locks are released.
    struct Wake {
        let continuation: CheckedContinuation<ServerEvent?, Never>
        let event: ServerEvent
        func resume() { continuation.resume(returning: event) }
    }

    /// Adds an event (called under the hub's lock, so in sequence order); returns the reader to
    /// wake, if one waits.
    func enqueue(_ event: ServerEvent) -> Wake? {
        state.withLock { state -> Wake? in
            guard !state.closed else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return Wake(continuation: waiter, event: event)
            }
            if let key = event.key { state.events.removeAll { $0.key == key } }
            state.events.append(event)
            if state.events.count > limit {
                // Too far behind even with one event per key: start again from a clean state.
                state.events = [EventHub.resync(sequence: event.sequence, reason: "slow")]
            }
            return nil
        }
    }

    func next() async -> ServerEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServerEvent?, Never>) in
                let ready = state.withLock { state -> ServerEvent?? in
                    if !state.events.isEmpty { return .some(state.events.removeFirst()) }
                    if state.closed || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
    }

    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<ServerEvent?, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    var count: Int { state.withLock { $0.events.count } }
}

/// A subscriber's end: read events with ``next()`` until nil, then (or instead) ``close()``.
public final class EventSubscription: Sendable {
    let queue: EventQueue
    private let onClose: @Sendable () -> Void
    private let closed = Mutex(false)

    init(queue: EventQueue, onClose: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.onClose = onClose
    }

    /// The next event; waits for one; nil once closed.
    public func next() async -> ServerEvent? { await queue.next() }

    /// Events waiting to be read (at most the hub's queue limit).
    public var pending: Int { queue.count }

    public func close() {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        queue.close()
        onClose()
    }

    deinit { close() }
}
