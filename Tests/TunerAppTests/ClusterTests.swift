import Foundation
import LiveTV
import Logging
import NIOConcurrencyHelpers
import Testing
import TunerStorage
import TunerTesting

@testable import TunerApp

/// Two nodes of one cluster on a real PostgreSQL: the secrets they share, the live claims that
/// give a channel one node and a source one count, and the scheduler's lease.
@Suite(.enabled(if: TestPostgres.isAvailable)) struct ClusterTests {
    static let logger = Logger(label: "cluster-test")

    /// No heartbeat runs in these tests (only `join` writes one): a node stays listed for an hour,
    /// however slowly a loaded machine gets through a test.
    static func settings(_ name: String, _ advertise: String) -> ClusterSettings {
        ClusterSettings(nodeID: name, advertise: advertise, heartbeatSeconds: 0.2, nodeTimeoutSeconds: 3600)
    }

    /// Two joined nodes `a` and `b` on a fresh database, each with a data folder of its own.
    static func withTwoNodes(_ body: (TunerCluster, TunerCluster, [DataFolder]) async throws -> Void) async throws {
        try await TestPostgres.withDatabase(schemas: DataFolder.databaseSchemas) { database in
            let base = NSTemporaryDirectory() + "cluster-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: base) }
            let folders = [try DataFolder(path: base + "/a"), try DataFolder(path: base + "/b")]
            let a = try await TunerCluster.join(
                settings: settings("a", "http://10.0.0.1:8080"),
                database: database, dataFolder: folders[0], logger: logger)
            let b = try await TunerCluster.join(
                settings: settings("b", "http://10.0.0.2:8080"),
                database: database, dataFolder: folders[1], logger: logger)
            do {
                try await body(a, b, folders)
            } catch {
                await a.leave()
                await b.leave()
                throw error
            }
            await a.leave()
            await b.leave()
        }
    }

    @Test func nodesShareTheSecretsAndListEachOther() async throws {
        try await Self.withTwoNodes { a, b, folders in
            #expect(a.signingKeyBytes == b.signingKeyBytes && a.signingKeyBytes.count == 32)
            #expect(a.token == b.token && !a.token.isEmpty)
            // Each data folder holds them too, where a single Tuner keeps them.
            #expect(
                FileManager.default.contents(atPath: folders[0].tokenPath)
                    == FileManager.default.contents(atPath: folders[1].tokenPath))
            let stored = try folders[1].loadOrCreateToken()
            #expect(stored == b.token)
            let listed = try await a.nodes().map(\.id)
            #expect(listed == ["a", "b"])
            // The relay secret: only its exact value passes.
            let secret = a.claims.relayHeader.value
            #expect(a.acceptsRelay(secret) && b.acceptsRelay(secret))
            let altered = String(secret.dropLast()) + (secret.hasSuffix("0") ? "1" : "0")
            #expect(!a.acceptsRelay(nil) && !a.acceptsRelay("") && !a.acceptsRelay(altered))
            #expect(!a.acceptsRelay(secret + "0") && !a.acceptsRelay(String(secret.dropLast())))
            // A node that leaves is no longer listed.
            await b.leave()
            let left = try await a.nodes().map(\.id)
            #expect(left == ["a"])
        }
    }

    @Test func aChannelHasOneHolderAndASourceOneCountOverTheNodes() async throws {
        try await Self.withTwoNodes { a, b, _ in
            guard case .local = await a.live.claim(channelID: 7) else {
                Issue.record("the first claim of channel 7 is a's")
                return
            }
            guard case .relay(let relay) = await b.live.claim(channelID: 7) else {
                Issue.record("b relays channel 7 from a")
                return
            }
            #expect(relay.node == "a" && relay.url.absoluteString == "http://10.0.0.1:8080/internal/live/7")
            #expect(relay.headerName == TunerCluster.relayHeader && b.acceptsRelay(relay.headerValue))
            // Source 1 allows one connection: a's channel 7 reads it, so b's channel 8 may not.
            #expect(await a.live.use(sourceID: 1, limit: 1, for: 7))
            guard case .local = await b.live.claim(channelID: 8) else {
                Issue.record("b takes channel 8")
                return
            }
            #expect(await b.live.use(sourceID: 1, limit: 1, for: 8) == false)
            #expect(await b.live.use(sourceID: 2, limit: 1, for: 8))
            let channels = try await a.nodes().map(\.channels)
            #expect(channels == [[7], [8]])
            // a gives channel 7 back: b may take it, and source 1 is free again.
            await a.live.release(channelID: 7)
            guard case .local = await b.live.claim(channelID: 7) else {
                Issue.record("b takes channel 7 once a gave it back")
                return
            }
            #expect(await b.live.use(sourceID: 1, limit: 1, for: 7))
            // A node that dies (its connection closes) loses its claims as soon as the server has
            // ended its session: a moment after the close, longer on a loaded machine.
            await b.claims.close()
            var taken = false
            for _ in 0..<100 {
                if case .local = await a.live.claim(channelID: 7) {
                    taken = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            guard taken else {
                Issue.record("a takes channel 7 once b is gone")
                return
            }
        }
    }

    @Test func eachNodeCountsTheOthersUsersAndTunersFromTheirHeartbeats() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let onA = LiveUsage(users: ["alice": 2], profiles: ["default": [1, 2]])
            _ = try await a.store.heartbeat(
                nodeID: "a", advertise: a.settings.advertise, load: ClusterNodeLoad(usage: onA), timeout: 3600)
            let seenByB = try await b.store.heartbeat(
                nodeID: "b", advertise: b.settings.advertise,
                load: ClusterNodeLoad(usage: LiveUsage(users: ["alice": 1, "bob": 1], profiles: ["default": [3]])),
                timeout: 3600)
            #expect(seenByB == onA, "b sees a's usage, not its own")
            let seenByA = try await a.store.heartbeat(
                nodeID: "a", advertise: a.settings.advertise, load: ClusterNodeLoad(usage: onA), timeout: 3600)
            #expect(seenByA == LiveUsage(users: ["alice": 1, "bob": 1], profiles: ["default": [3]]))
            // The live registry reads what the heartbeat stored.
            a.claims.setUsageElsewhere(seenByA)
            #expect(a.live.usageElsewhere.users["bob"] == 1)
        }
    }

    @Test func oneNodeAtATimeRunsTheScheduledRefreshes() async throws {
        try await Self.withTwoNodes { a, b, _ in
            let running = NIOLockedValueBox<[String]>([])
            let tasks = [a, b].map { node in
                Task {
                    await node.whileScheduling {
                        running.withLockedValue { $0.append(node.settings.nodeID) }
                        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(50)) }
                    }
                }
            }
            var first: [String] = []
            for _ in 0..<100 where first.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                first = running.withLockedValue { $0 }
            }
            // Long enough for the other to have taken it too, were it free.
            try await Task.sleep(for: .seconds(1))
            #expect(running.withLockedValue { $0 } == first && first.count == 1, "\(running.withLockedValue { $0 })")
            // The holder stops (its lease ends with its connection): the other takes over.
            let holder = first.first == "a" ? 0 : 1
            tasks[holder].cancel()
            await [a, b][holder].leave()
            for _ in 0..<100 where running.withLockedValue({ $0.count }) < 2 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(running.withLockedValue { $0.count } == 2 && running.withLockedValue { $0 }.last != first.first)
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
    }
}

/// `--node-id` and `--advertise` as `tuner serve` reads them.
@Suite struct ClusterSettingsTests {
    static func load(_ flags: [String: String]) async throws -> TunerConfiguration {
        try await TunerConfiguration.load(
            flags: flags.merging(["data": NSTemporaryDirectory() + "cluster-settings-" + UUID().uuidString]) { a, _ in a
            },
            environment: [:])
    }

    @Test func aNodeNeedsPostgreSQLAnAddressAndAName() async throws {
        let database = "postgres://tuner@10.0.0.5:5432/tuner"
        let joined = try await Self.load([
            "database": database, "nodeId": "tv-1", "advertise": "http://10.0.0.2:8080/", "heartbeatInterval": "2",
            "nodeTimeout": "10s",
        ])
        #expect(
            joined.cluster
                == ClusterSettings(
                    nodeID: "tv-1", advertise: "http://10.0.0.2:8080", heartbeatSeconds: 2, nodeTimeoutSeconds: 10))
        #expect(try await Self.load(["database": database]).cluster == nil)
        let refusals: [([String: String], String)] = [
            (["nodeId": "tv-1", "advertise": "http://10.0.0.2:8080"], "PostgreSQL"),
            (["database": database, "advertise": "http://10.0.0.2:8080"], "--node-id"),
            (["database": database, "nodeId": "tv 1", "advertise": "http://10.0.0.2:8080"], "letters"),
            (["database": database, "nodeId": String(repeating: "a", count: 65), "advertise": "http://a:1"], "64"),
            (["database": database, "nodeId": "tv-1"], "--advertise"),
            (["database": database, "nodeId": "tv-1", "advertise": "ftp://10.0.0.2"], "--advertise"),
            (["database": database, "nodeId": "tv-1", "advertise": "http://u:p@10.0.0.2:8080"], "--advertise"),
            (["database": database, "nodeId": "tv-1", "advertise": "http://10.0.0.2:8080/tuner"], "--advertise"),
            (
                ["database": database, "nodeId": "tv-1", "advertise": "http://10.0.0.2:8080", "nodeTimeout": "1"],
                "twice"
            ),
        ]
        for (flags, said) in refusals {
            do {
                _ = try await Self.load(flags)
                Issue.record("accepted \(flags)")
            } catch {
                #expect("\(error)".contains(said), "\(flags): \(error)")
                #expect(!"\(error)".contains("u:p@"), "no password in the error")
            }
        }
    }
}
