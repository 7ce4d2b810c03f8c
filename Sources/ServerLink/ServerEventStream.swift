import Foundation
import HTTPTypes
import Logging
import MediaFormats
import Synchronization
import WSClient

/// The client side of the server's live events: one WebSocket to `/api/v1/events` that stays
/// open. It answers the server's pings and pings too (every 15 s; a server that leaves one
/// unanswered is dropped), reconnects after a drop with exponential backoff and jitter, and
/// resumes from the last event it saw (`?epoch=…&after=…`), so nothing is missed; when the
/// server cannot fill the gap (it restarted, or the gap outgrew its backlog) the stream says
/// ``Update/resync``: reload what you show.
public struct ServerEventStream: Sendable {
    /// What the stream tells its reader.
    public enum Update: Sendable, Hashable {
        /// Connected (again); the server's epoch and newest sequence number.
        case connected(epoch: String, sequence: UInt64)
        /// An event, in sequence order.
        case event(ServerEventMessage)
        /// What was shown may be stale: reload it (the server restarted, or too much was missed).
        case resync(reason: String)
        /// The connection ended; the next attempt comes after `retryIn` seconds.
        case disconnected(reason: String, retryIn: TimeInterval)
    }

    public let link: ServerLink
    /// The topics to follow (empty: all).
    public let topics: [String]
    /// The backoff between reconnects (never gives up: the attempts count is ignored).
    public var reconnect = RetryPolicy(baseDelay: 0.25, maximumDelay: 10, jitter: 0.5)
    /// The heartbeat: a ping this often; no pong by the next one closes the connection.
    public var pingPeriod: Duration = .seconds(15)
    let logger: Logger

    public init(link: ServerLink, topics: [String] = [], logger: Logger = Logger(label: "tuner.events")) {
        self.link = link
        self.topics = topics
        self.logger = logger
    }

    /// Where the stream is: what it resumes from after a reconnect.
    struct Position: Sendable {
        var epoch: String?
        var sequence: UInt64?
        var heardSinceConnect = false
    }

    /// The position, shared with the connection's handler.
    final class Tracker: Sendable {
        let position = Mutex(Position())
    }

    /// The updates until the reader stops iterating (or its task is cancelled).
    public func updates() -> AsyncStream<Update> {
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self, bufferingPolicy: .bufferingNewest(4096))
        // Feeds the stream it returns and lives as long as its reader: cancelled when the reader
        // stops iterating or its task is cancelled.
        let task = Task { await run(continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ continuation: AsyncStream<Update>.Continuation) async {
        let tracker = Tracker()
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while !Task.isCancelled {
            let url = address(resumingFrom: tracker.position.withLock { $0 })
            var reason = "closed by the server"
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: configuration(), logger: logger
                ) { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        guard case .text(let text) = message, let event = ServerEventMessage.parse(text) else {
                            continue
                        }
                        continuation.yield(Self.update(for: event, tracker: tracker))
                    }
                }
            } catch is CancellationError {
                break
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { break }
            // A connection that delivered something resets the backoff.
            let heard = tracker.position.withLock { position in
                defer { position.heardSinceConnect = false }
                return position.heardSinceConnect
            }
            if heard { failures = 0 }
            failures += 1
            let delay = reconnect.delay(afterFailures: failures, random: &random)
            continuation.yield(.disconnected(reason: reason, retryIn: delay))
            try? await Task.sleep(for: .seconds(delay))
        }
        continuation.finish()
    }

    /// Turns a message into an update and moves the position on.
    static func update(for event: ServerEventMessage, tracker: Tracker) -> Update {
        tracker.position.withLock { position -> Update in
            position.heardSinceConnect = true
            position.epoch = event.epoch
            switch event.type {
            case "hello":
                // Keep the sequence heard so far: what was missed comes next, after it.
                if position.sequence == nil { position.sequence = event.sequence }
                return .connected(epoch: event.epoch, sequence: event.sequence)
            case "resync" where event.topic == "server":
                position.sequence = event.sequence
                let reason = (try? JSONSerialization.jsonObject(with: event.data) as? [String: Any])?["reason"]
                return .resync(reason: reason as? String ?? "stale")
            default:
                position.sequence = event.sequence
                return .event(event)
            }
        }
    }

    func address(resumingFrom position: Position) -> String {
        var base = link.baseURL
        if base.hasPrefix("https://") {
            base = "wss://" + base.dropFirst("https://".count)
        } else if base.hasPrefix("http://") {
            base = "ws://" + base.dropFirst("http://".count)
        }
        var query: [String] = []
        if !topics.isEmpty { query.append("topics=" + topics.joined(separator: ",")) }
        if let epoch = position.epoch, let sequence = position.sequence {
            query += ["epoch=" + epoch, "after=" + String(sequence)]
        }
        return base + "/api/v1/events" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    private func configuration() -> WebSocketClientConfiguration {
        var headers = HTTPFields()
        if let token = link.token { headers[.authorization] = "Bearer \(token)" }
        return WebSocketClientConfiguration(
            maxFrameSize: 1 << 22, additionalHeaders: headers, autoPing: .enabled(timePeriod: pingPeriod))
    }
}
