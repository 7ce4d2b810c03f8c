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
        // A safety net only (the loop ends at "complete"): generous, as the suite's busiest
        // minute on two cores once kept this 1.6 s download from finishing within 30 s.
        let deadline = ContinuousClock.now + .seconds(120)
        // The reader gives up at the deadline: closing the subscription ends its wait.
        let closer = Task {
            try? await Task.sleep(for: .seconds(120))
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

    @Test("a scheduled refresh reports like one a user asks for: progress, result, guide, the source's new state")
    func aScheduledRefreshIsHeard() async throws {
        let harness = try await ProxyHarness.start()
        let served = URL(fileURLWithPath: harness.dataDirectory).appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let hour = Int(Date().timeIntervalSince1970) / 3600 * 3600
        let stamp = { (t: Int) in
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyyMMddHHmmss"
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(t))) + " +0000"
        }
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?><tv><channel id="news.example"><display-name>News</display-name>\
            </channel><programme start="\(stamp(hour))" stop="\(stamp(hour + 3600))" channel="news.example">\
            <title>Now</title></programme></tv>
            """.utf8
        ).write(to: served.appendingPathComponent("guide.xml"))
        try Data(
            """
            #EXTM3U x-tvg-url="\(harness.origin.baseURL)/static/guide.xml"
            #EXTINF:-1 tvg-id="news.example",News
            \(harness.origin.baseURL)/files/news.ts?size=3000
            """.utf8
        ).write(to: served.appendingPathComponent("list.m3u"))
        harness.origin.serveDirectory(served.path)
        let added = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json: #"{"location":"\#(harness.origin.baseURL)/static/list.m3u"}"#)
        let sourceID = try #require(try HTTP.json(added)["id"] as? Int)

        let subscription = harness.server.engine.events.subscribe(topics: [.imports, .guide])
        // A day later: the source is due, and the scheduler refreshes it.
        let refreshed = await harness.server.engine.catalogScheduler.refreshDue(
            now: Date().addingTimeInterval(86_400 * 2))
        #expect(refreshed == [Int64(sourceID)])
        var types: [String] = []
        let closer = Task {
            try? await Task.sleep(for: .seconds(10))
            subscription.close()
        }
        defer { closer.cancel() }
        while let event = await subscription.next() {
            types.append(event.type)
            if event.type == "source.changed" {
                let object = try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]
                #expect(
                    object?["id"] as? Int == sourceID && object?["status"] as? String == "ok",
                    "\(String(describing: object))")
                break
            }
        }
        subscription.close()
        #expect(types.contains("import.progress") && types.contains("import.finished"), "\(types)")
        #expect(types.contains("guide.updated"), "\(types)")
        #expect(types.last == "source.changed", "\(types)")
        try await harness.stop()
    }

    @Test("the cache's figures go out while they change: a miss and a hit are heard without asking")
    func cacheFiguresAreHeard() async throws {
        let harness = try await ProxyHarness.start()
        let subscription = harness.server.engine.events.subscribe(topics: [.cache])
        let proxied = try harness.proxyURL("/files/stats.bin?size=50000")
        #expect(try await HTTP.fetch(proxied).status == 200)
        #expect(try await HTTP.fetch(proxied).status == 200)
        let closer = Task {
            try? await Task.sleep(for: .seconds(15))
            subscription.close()
        }
        defer { closer.cancel() }
        var served = 0
        while let event = await subscription.next() {
            guard event.type == "cache.stats" else { continue }
            let object = try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]
            served = (object?["hitBytes"] as? Int ?? 0) + (object?["missBytes"] as? Int ?? 0)
            if served >= 100_000 { break }
        }
        subscription.close()
        #expect(served >= 100_000, "the figures after two reads of 50 kB: \(served)")
        try await harness.stop()
    }
}
