import Foundation
import Testing
import TunerApp
import TunerServer
import TunerTesting

/// The events hub as a running server feeds it: a download's state changes and its progress,
/// through the same `EventHub` the WebSocket will serve. (The throttle's rule is checked without
/// the clock in `EventHubTests`.)
@Suite struct EventFeedTests {
    @Test func aDownloadIsFollowedThroughTheHub() async throws {
        let harness = try await ProxyHarness.start()
        let events = harness.server.engine.events
        let subscription = events.subscribe(topics: [.transfers])
        // 2 MB sent 64 KiB every 50 ms: about 1.6 s of progress.
        let url = harness.origin.baseURL + "/files/feed.bin?size=2000000&drip=65536,50"
        let added = try await HTTP.fetch(harness.api + "/transfers", method: "POST", json: #"{"url": "\#(url)"}"#)
        #expect(added.status == 201 || added.status == 202, "\(added)")

        var progressTimes: [ContinuousClock.Instant] = []
        var states: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        // The reader gives up at the deadline: closing the subscription ends its wait.
        let closer = Task {
            try? await Task.sleep(for: .seconds(30))
            subscription.close()
        }
        defer { closer.cancel() }
        while ContinuousClock.now < deadline {
            guard let event = await subscription.next() else { break }
            let object = try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]
            if event.type == "transfer.progress" { progressTimes.append(.now) }
            if event.type == "transfer.changed", let state = object?["state"] as? String {
                states.append(state)
                if state == "complete" { break }
            }
        }
        subscription.close()
        #expect(states.last == "complete", "\(states) \(added.status) \(String(decoding: added.body, as: UTF8.self))")
        #expect(states.contains("active"))
        #expect(!progressTimes.isEmpty, "progress while it ran")
        try await harness.stop()
    }
}
