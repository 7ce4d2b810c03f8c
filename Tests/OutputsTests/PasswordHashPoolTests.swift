import Foundation
import Synchronization
import Testing

@testable import Outputs

/// Password hashes run on a bounded pool, one at a time per client, clients served in turn: a
/// flood from one client never holds another's hash behind it.
@Suite struct PasswordHashPoolTests {
    /// What ran, and how many at once (overall and per client).
    final class Meter: Sendable {
        struct State {
            var inside: [String: Int] = [:]
            var mostOverall = 0
            var mostPerClient = 0
            var order: [String] = []
        }
        let state = Mutex(State())

        func work(_ client: String) -> Bool {
            state.withLock { state in
                state.inside[client, default: 0] += 1
                state.mostOverall = max(state.mostOverall, state.inside.values.reduce(0, +))
                state.mostPerClient = max(state.mostPerClient, state.inside[client] ?? 0)
            }
            usleep(20_000)
            state.withLock { state in
                state.inside[client, default: 0] -= 1
                state.order.append(client)
            }
            return true
        }
    }

    @Test("at most `width` hashes at once, one per client, and every job runs")
    func bounded() async {
        let pool = PasswordHashPool(width: 2)
        let meter = Meter()
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<24 {
                let client = "client-\(index % 3)"
                group.addTask { await pool.run(for: client) { meter.work(client) } }
            }
            for await result in group { #expect(result) }
        }
        let state = meter.state.withLock { $0 }
        #expect(state.mostOverall <= 2)
        #expect(state.mostPerClient == 1)
        #expect(state.order.count == 24)
        #expect(pool.hashesRun == 24)
    }

    @Test("a client arriving behind a flood runs next, not after it")
    func fairBetweenClients() async throws {
        let pool = PasswordHashPool(width: 1)
        let meter = Meter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask { _ = await pool.run(for: "flood") { meter.work("flood") } }
            }
            // Let the flood queue up first.
            while meter.state.withLock({ $0.order.isEmpty && $0.inside.isEmpty }) {
                try await Task.sleep(for: .milliseconds(1))
            }
            group.addTask {
                // Counted when the owner queues (a busy machine may start this task late).
                meter.state.withLock { $0.order.append("owner queues") }
                _ = await pool.run(for: "owner") { meter.work("owner") }
            }
            try await group.waitForAll()
        }
        let order = meter.state.withLock { $0.order }
        let queued = try #require(order.firstIndex(of: "owner queues"))
        let position = try #require(order.firstIndex(of: "owner"))
        // Behind at most the flood's hash running when it came and one more already taken.
        #expect(position - queued <= 3, "\(order)")
    }

    @Test("a client's queue is bounded: beyond it a check fails at once")
    func boundedQueue() async {
        let pool = PasswordHashPool(width: 1, perClientQueue: 2)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await pool.run(for: "flood") {
                        usleep(20_000)
                        return true
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.contains(false))
        #expect(pool.hashesRun < 8)
    }
}
