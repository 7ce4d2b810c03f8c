import Foundation
import Testing
import Transfers
import TunerApp

/// The live events' hub: one sequence, resume after a reconnect, and slow readers that neither
/// hold the server back nor grow.
@Suite struct EventHubTests {
    func text(_ event: ServerEvent?) -> String { event.map { String(decoding: $0.data, as: UTF8.self) } ?? "" }

    @Test func subscribersGetTheirTopicsInSequence() async throws {
        let hub = EventHub(epoch: "e1")
        let transfers = hub.subscribe(topics: [.transfers])
        let everything = hub.subscribe(topics: Set(EventTopic.allCases))
        hub.publish(.transfers, "transfer.changed", key: "transfer:1", data: Array(#"{"id":1}"#.utf8))
        hub.publish(.cache, "cache.changed", data: Array(#"{"bytes":5}"#.utf8))
        hub.publish(.transfers, "transfer.deleted", data: Array(#"{"id":2}"#.utf8))
        let first = await transfers.next()
        let second = await transfers.next()
        #expect(first?.sequence == 1 && first?.type == "transfer.changed")
        #expect(second?.sequence == 3 && second?.type == "transfer.deleted", "the cache event is not its topic")
        var all: [UInt64] = []
        for _ in 0..<3 { all.append(await everything.next()?.sequence ?? 0) }
        #expect(all == [1, 2, 3])
        #expect(
            first?.message(epoch: hub.epoch)
                == #"{"seq":1,"epoch":"e1","topic":"transfers","type":"transfer.changed","data":{"id":1}}"#)
    }

    @Test func aReconnectingClientGetsWhatItMissedOrAResync() async throws {
        let hub = EventHub(backlogLimit: 4, epoch: "e1")
        for index in 1...3 { hub.publish(.transfers, "t", data: Array("\(index)".utf8)) }
        // Saw up to 1: gets 2 and 3, then what comes next.
        let resumed = hub.subscribe(topics: [.transfers], resumeAfter: ("e1", 1))
        hub.publish(.transfers, "t", data: Array("4".utf8))
        var seen: [UInt64] = []
        for _ in 0..<3 { seen.append(await resumed.next()?.sequence ?? 0) }
        #expect(seen == [2, 3, 4])
        // Another run's epoch, or a sequence the backlog no longer reaches: reload.
        let restarted = await hub.subscribe(topics: [.transfers], resumeAfter: ("e0", 3)).next()
        #expect(restarted?.type == "resync" && restarted?.topic == .server)
        for index in 5...10 { hub.publish(.transfers, "t", data: Array("\(index)".utf8)) }
        let tooOld = await hub.subscribe(topics: [.transfers], resumeAfter: ("e1", 2)).next()
        #expect(tooOld?.type == "resync" && tooOld?.sequence == 10)
        // Caught up exactly at the newest: nothing missed, nothing replayed.
        let current = hub.subscribe(topics: [.transfers], resumeAfter: ("e1", 10))
        #expect(current.pending == 0)
        // A sequence from the future (a forged or confused client) is a resync too.
        let future = await hub.subscribe(topics: [.transfers], resumeAfter: ("e1", 99)).next()
        #expect(future?.type == "resync")
    }

    @Test func aSlowReaderKeepsTheNewestEventPerKeyAndNeverGrows() async throws {
        let hub = EventHub(queueLimit: 16, epoch: "e1")
        let slow = hub.subscribe(topics: [.transfers])
        // 10 transfers report progress 1,000 times each: the reader holds one event per transfer.
        for step in 1...1000 {
            for task in 0..<10 {
                hub.publish(.transfers, "transfer.progress", key: "transfer:\(task)", data: Array("\(step)".utf8))
            }
        }
        #expect(slow.pending == 10)
        var latest: [String] = []
        for _ in 0..<10 { latest.append(text(await slow.next())) }
        #expect(latest == Array(repeating: "1000", count: 10))
        // More distinct things than the queue holds: one resync instead of an ever longer queue.
        for task in 0..<100 { hub.publish(.transfers, "transfer.changed", key: "transfer:\(task)", data: []) }
        #expect(slow.pending <= 16)
        var sawResync = false
        while slow.pending > 0 {
            let event = await slow.next()
            if event?.type == "resync" { sawResync = true }
        }
        #expect(sawResync)
    }

    @Test func concurrentPublishersNeverReorderASubscribersEvents() async throws {
        let hub = EventHub(queueLimit: 100_000, epoch: "e1")
        let reader = hub.subscribe(topics: [.streams])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<500 { hub.publish(.streams, "s", data: []) } }
            }
        }
        var previous: UInt64 = 0
        var ordered = true
        for _ in 0..<2000 {
            let sequence = await reader.next()?.sequence ?? 0
            ordered = ordered && sequence == previous + 1
            previous = sequence
        }
        #expect(ordered && previous == 2000)
    }

    @Test func closingEndsTheReaderAndForgetsTheSubscriber() async throws {
        let hub = EventHub(epoch: "e1")
        let subscription = hub.subscribe(topics: [.cache])
        #expect(hub.subscriberCount == 1)
        let waiting = Task { await subscription.next() }
        try await Task.sleep(for: .milliseconds(50))
        subscription.close()
        #expect(await waiting.value == nil)
        #expect(hub.subscriberCount == 0)
        hub.publish(.cache, "c", data: [])
        #expect(subscription.pending == 0)
    }

    @Test func progressIsThrottledPerTaskAndTheNewestWaits() async throws {
        let hub = EventHub(epoch: "e1")
        let reader = hub.subscribe(topics: [.transfers])
        // An interval no test run reaches: what is sent now and what waits does not depend on speed.
        let throttle = EventSources.ProgressThrottle(hub: hub, interval: .seconds(3600))
        for bytes in 1...100 {
            throttle.offer(TransferProgress(id: 7, bytes: Int64(bytes), total: 100, bytesPerSecond: 0, etaSeconds: nil))
            throttle.offer(TransferProgress(id: 8, bytes: Int64(bytes), total: 100, bytesPerSecond: 0, etaSeconds: nil))
        }
        #expect(hub.nextSequence == 3, "one for each task at once")
        throttle.flush()
        #expect(hub.nextSequence == 5, "then the newest of each")
        throttle.forget(7)
        throttle.offer(TransferProgress(id: 7, bytes: 1, total: 100, bytesPerSecond: 0, etaSeconds: nil))
        #expect(hub.nextSequence == 6, "a task whose state changed starts again")
        // The reader that did not read holds the newest of each task: 7 started again, 8 at 100.
        #expect(reader.pending == 2)
        var data: [String] = []
        for _ in 0..<2 { data.append(text(await reader.next())) }
        #expect(data.contains { $0.contains(#""bytes":100"#) && $0.contains(#""id":8"#) }, "\(data)")
        #expect(data.contains { $0.contains(#""bytes":1,"#) && $0.contains(#""id":7"#) }, "\(data)")
    }

    @Test("a value published as it is stored goes out without the provider's secrets")
    func publishedValuesAreRedacted() async throws {
        struct Header: Encodable {
            var name: String
            var value: String
        }
        struct Download: Encodable {
            var sourceURL: String
            var headers: [Header]
        }
        let hub = EventHub(epoch: "e1")
        let subscription = hub.subscribe(topics: [.transfers])
        hub.publish(
            .transfers, "transfer.changed",
            value: Download(
                sourceURL: "http://user:hunter2@panel.example/movie/alice/s3cret/7.mkv?password=topsecret",
                headers: [Header(name: "Authorization", value: "Basic Zm9vOmJhcg")]))
        let sent = text(await subscription.next())
        for secret in ["hunter2", "s3cret", "topsecret", "Zm9vOmJhcg"] {
            #expect(!sent.contains(secret), "\(secret) in \(sent)")
        }
        #expect(sent.contains("panel.example") && sent.contains("REDACTED"))
    }
}
