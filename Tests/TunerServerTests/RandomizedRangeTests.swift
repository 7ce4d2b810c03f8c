import Foundation
import Testing
import TunerTesting

/// Thousands of random ranges through the proxy, compared with the origin's bytes, while the
/// origin resets connections, fails with 503 and ignores Range at random.
@Suite struct RandomizedRangeTests {
    @Test func randomRangesMatchTheOriginUnderFaults() async throws {
        let harness = try await ProxyHarness.start()
        harness.origin.faults = FaultPlan(
            resetProbability: 0.08, serverErrorProbability: 0.04, ignoreRangeProbability: 0.08, seed: 42)
        let files = [("fz0.mp4", 3_000_000), ("fz1.ts", 1_234_567), ("fz2.mp4", 65_536), ("fz3.bin", 5_000_001)]
        let urls = try files.map { try harness.proxyURL("/files/\($0.0)?size=\($0.1)") }
        let expected = files.map { TestOrigin.content(name: $0.0, range: 0..<$0.1) }
        var generator = SplitMix64(seed: 7)
        var plans: [(Int, Int, Int)] = []
        for _ in 0..<2000 {
            let file = Int.random(in: 0..<files.count, using: &generator)
            let size = files[file].1
            let start = Int.random(in: 0..<size, using: &generator)
            let length = Int.random(in: 1...min(300_000, size - start), using: &generator)
            plans.append((file, start, length))
        }
        let results = try await withThrowingTaskGroup(of: (Int, Bool, String).self) { group in
            var iterator = plans.enumerated().makeIterator()
            var outcomes: [(Int, Bool, String)] = []
            func addNext() -> Bool {
                guard let (index, plan) = iterator.next() else { return false }
                group.addTask {
                    let (file, start, length) = plan
                    let fetched = try await HTTP.fetch(
                        urls[file], headers: ["Range": "bytes=\(start)-\(start + length - 1)"])
                    let want = Array(expected[file][start..<(start + length)])
                    if fetched.status == 206 && fetched.error == nil {
                        return (index, fetched.body == want, "complete")
                    }
                    if fetched.status == 206 {
                        // Cut short: whatever arrived must still be the right bytes.
                        return (index, Array(want.prefix(fetched.body.count)) == fetched.body, "cut short")
                    }
                    // An origin error passed through (a 503 of the first request of a file).
                    return (index, fetched.status >= 500, "failed \(fetched.status)")
                }
                return true
            }
            for _ in 0..<16 { _ = addNext() }
            while let outcome = try await group.next() {
                outcomes.append(outcome)
                _ = addNext()
            }
            return outcomes
        }
        #expect(results.count == plans.count)
        let wrong = results.filter { !$0.1 }
        #expect(wrong.isEmpty, "responses with wrong bytes: \(wrong.prefix(5))")
        let complete = results.filter { $0.2 == "complete" }.count
        // The proxy retries transient origin faults, so nearly every request completes.
        #expect(complete >= plans.count * 95 / 100, "only \(complete) of \(plans.count) completed")
        try await harness.stop()
    }
}
