import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import TunerAPI
import TunerApp

/// `GET /api/v1/events` (a WebSocket): the server's live events for the web app and
/// `tuner watch`. Query: `topics=transfers,imports,cache,streams,guide` (default all), and to
/// resume after a reconnect `epoch=…&after=SEQ` (the last event seen). The first message is
/// `{"hello":{"epoch":…,"seq":…}}`; then one JSON message per event (``ServerEvent/message(epoch:)``);
/// a `resync` event means: reload what you show. The server pings every 15 s and closes a
/// connection whose ping went unanswered until the next. A slow reader gets coalesced events
/// (the hub keeps one per key) and never holds the server back.
struct EventsController {
    let engine: TunerEngine

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.ws(APIOperation.events.routerPath) { request, _ in
            // Bad parameters refuse the upgrade with a reason, before any WebSocket exists.
            _ = try Self.parameters(request)
            return .upgrade([:])
        } onUpgrade: { [engine] inbound, outbound, context in
            guard let (topics, resume) = try? Self.parameters(context.request) else { return }
            let hub = engine.events
            let subscription = hub.subscribe(topics: topics, resumeAfter: resume)
            defer { subscription.close() }
            try await outbound.write(
                .text(#"{"hello":{"epoch":""# + hub.epoch + #"","seq":"# + String(hub.nextSequence &- 1) + "}}"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while let event = await subscription.next() {
                        try await outbound.write(.text(event.message(epoch: hub.epoch)))
                    }
                }
                // Reading keeps pings answered and notices the close; the client sends nothing else.
                for try await _ in inbound {}
                subscription.close()
                group.cancelAll()
            }
        }
    }

    static func parameters(_ request: Request) throws -> (Set<EventTopic>, (epoch: String, sequence: UInt64)?) {
        let query = request.uri.queryParameters
        var topics = Set(EventTopic.allCases)
        if let text = query["topics"] {
            topics = []
            for name in text.split(separator: ",") {
                guard let topic = EventTopic(rawValue: String(name)) else {
                    throw FeatureError(
                        .invalid, "topics are transfers, imports, cache, streams and guide, comma-separated"
                    )
                }
                topics.insert(topic)
            }
        }
        var resume: (epoch: String, sequence: UInt64)?
        if let after = query["after"] {
            guard let sequence = UInt64(after), let epoch = query["epoch"], !epoch.isEmpty, epoch.count <= 32 else {
                throw FeatureError(.invalid, "after must be a sequence number, sent with the epoch it came from")
            }
            resume = (String(epoch), sequence)
        }
        return (topics, resume)
    }
}
