import Foundation
import Testing
import TunerTesting

/// Issue 26, point 5: an origin that answers every ranged GET with 200 and the whole body costs
/// one fetch of the file, however many players ask for ranges of it at once. Through the real
/// `tuner serve` (its own process, so the test process's load cannot slow the cache) and curl.
@Suite struct RangeIgnoringOriginEndToEndTests {
    @Test func thirtyRandomRangesTenAtATimeCostTheOriginOneFile() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        let size = 16 << 20
        let name = "norange26.bin"
        // A provider slower than loopback (64 KiB every 10 ms, about 6.5 MB/s), so readers come
        // and go while the one fetch runs, as players on a real network do.
        let url = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/\(name)?size=\(size)&norange=1&drip=65536,10", data: server.dataDirectory)
        let expected = TestOrigin.content(name: name, range: 0..<size)
        var generator = SplitMix64(seed: 26)
        // Random ranges up to 2 MiB long over the whole file, none reaching its last MiB: when a
        // wave of ten is done, its readers have all left before the fetch reached the end.
        let plans: [(start: Int, end: Int)] = (0..<30).map { _ in
            let start = Int.random(in: 0..<(size - (1 << 20) - 1), using: &generator)
            let end = min(size - (1 << 20), start + Int.random(in: 1...(2 << 20), using: &generator))
            return (start, end)
        }
        // Waves of ten at once, each after the one before has ended: what a few players seeking
        // around do. A fetch stopped when a wave's readers leave costs every later wave a new one.
        var failures: [String] = []
        for wave in 0..<3 {
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for plan in plans[(wave * 10)..<(wave * 10 + 10)] {
                    group.addTask {
                        let range = "\(plan.start)-\(plan.end - 1)"
                        let fetched = try await Curl.fetch(tools[.curl], url, options: ["-r", range])
                        let want = "bytes \(range)/\(size)"
                        guard fetched.status == 206, fetched.process.succeeded,
                            fetched.header("Content-Range") == want,
                            fetched.header("Content-Length") == String(plan.end - plan.start),
                            sameBytes(fetched.body, Array(expected[plan.start..<plan.end]))
                        else {
                            return "bytes=\(range): \(fetched.status) \(fetched.header("Content-Range") ?? "-") "
                                + "\(fetched.body.count) bytes \(fetched.process.errorOutput)"
                        }
                        return nil
                    }
                }
                var failures: [String] = []
                for try await case let failure? in group { failures.append(failure) }
                return failures
            }
            failures += answers
        }
        #expect(failures.isEmpty, "wrong answers: \(failures.prefix(5))")
        // Bytes the origin's sockets took, not requests: one file, with 5% for bytes in flight.
        let sent = origin.bodyBytesSent
        #expect(sent <= size + size / 20, "the origin sent \(sent) bytes (\(Double(sent) / Double(size))×)")
        await server.stop()
        try await origin.shutdown()
    }
}
