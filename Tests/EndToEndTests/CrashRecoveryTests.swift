import Foundation
import Testing
import TunerTesting

/// `kill -9` in the middle of cold downloads, then a restart on the same data folder: the cache
/// index must never claim bytes that are not on disk, so every byte served afterwards is right.
@Suite struct CrashRecoveryTests {
    static let files = 3
    static let size = 64 << 20
    /// The first request of each file: 256 KiB every 10 ms (at most 25 MB/s), and after 24 MiB
    /// nothing more until the client goes away. A kill once the furthest is 20 MiB in lands while
    /// bytes flow, with a 16 MiB sync point behind it; on a machine so loaded that the test only
    /// looks later, the held connections still make it land mid-transfer. Later requests (the
    /// gap fills after the restart) are answered faithfully.
    static let faults = "drip=262144,10&hold=25165824&failfirst=1"

    @Test func killDashNineDuringColdReadsNeverCorruptsTheCache() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        var generator = SystemRandomNumberGenerator()
        var cachedNames: [String] = []

        for cycle in 1...3 {
            let names = (0..<Self.files).map { "kill\(cycle)-\($0).bin" }
            let originURLs = names.map { origin.baseURL + "/files/\($0)?size=\(Self.size)&\(Self.faults)" }
            let victim = try await TunerProcess.serve(data: data, arguments: ["--cache-size", "2GiB"])
            // proxy-url finds the running server through server.url; only the path survives the
            // restart, because the next server listens on another port.
            var proxyPaths: [String] = []
            for url in originURLs {
                let proxied = try await TunerProcess.proxyURL(for: url, data: data)
                #expect(proxied.hasPrefix(victim.baseURL))
                proxyPaths.append(String(proxied.dropFirst(victim.baseURL.count)))
            }
            let paths = proxyPaths
            origin.resetCounters()

            // Cold downloads, all at once, killed mid-transfer.
            let downloads = (0..<Self.files).map { index in
                let output = workspace.file("partial-\(cycle)-\(index)")
                let url = victim.baseURL + paths[index]
                return (output, Task { try await Curl.fetch(tools[.curl], url, bodyPath: output) })
            }
            // Kill once every curl has bytes and the furthest is past the first 16 MiB sync point.
            // Polling, not a fixed sleep: on a loaded machine a curl may start seconds late.
            // (The origin holds every file at 24 MiB, so none can finish before the kill.)
            let outputs = downloads.map(\.0)
            var polls = 0
            while true {
                let counts = outputs.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
                if counts.allSatisfy({ $0 > 0 }) && counts.max()! >= 20 << 20 { break }
                polls += 1
                if polls > 3000 {
                    Issue.record("cycle \(cycle): the downloads never got going: \(counts)")
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            await victim.kill9()
            var received: [Int] = []
            for (output, download) in downloads {
                _ = try await download.value
                let count = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
                received.append(count)
                try? FileManager.default.removeItem(atPath: output)
            }
            #expect(
                received.allSatisfy { $0 > 0 && $0 < Self.size },
                "cycle \(cycle): the kill landed mid-transfer: \(received)")

            // The CLI notices that server.url names a dead server and reads the folder itself.
            let afterCrash = try await TunerProcess.cacheStatistics(data: data)
            let claimed = afterCrash["bytes"] as? Int ?? -1
            let fetched = origin.bodyBytesSent
            print(
                """
                cycle \(cycle): killed with \(received) bytes at the curls and \(fetched) sent by the origin; the \
                index claims \(claimed - cachedNames.count * Self.size) of them
                """
            )
            #expect(
                claimed >= cachedNames.count * Self.size && claimed <= cachedNames.count * Self.size + fetched,
                """
                cycle \(cycle): after the crash the index claims \(claimed) bytes; earlier cycles cached \
                \(cachedNames.count * Self.size), the origin sent \(fetched)
                """
            )

            // Restart on the same folder and read everything back.
            let server = try await TunerProcess.serve(data: data, arguments: ["--cache-size", "2GiB"])

            // Random ranges first: some land in cached spans, some across their edges, some in gaps.
            let ranges: [(file: Int, range: Range<Int>)] = (0..<50).map { _ in
                let file = Int.random(in: 0..<Self.files, using: &generator)
                let start = Int.random(in: 0..<Self.size, using: &generator)
                let length = Int.random(in: 1...(2 << 20), using: &generator)
                return (file, start..<min(Self.size, start + length))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for slice in ranges.chunked(into: 8) {
                    group.addTask {
                        for (file, range) in slice {
                            let fetched = try await HTTP.range(
                                server.baseURL + paths[file], "bytes=\(range.lowerBound)-\(range.upperBound - 1)")
                            #expect(fetched.status == 206, "cycle \(cycle) file \(file) range \(range)")
                            #expect(
                                fetched.contentRange == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(Self.size)"
                            )
                            expectSameBytes(
                                fetched.body, TestOrigin.content(name: names[file], range: range),
                                "cycle \(cycle) file \(file) range \(range)")
                        }
                    }
                }
                try await group.waitForAll()
            }

            // Then every file in full, with curl.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<Self.files {
                    group.addTask {
                        let output = workspace.file("full-\(cycle)-\(index)")
                        defer { try? FileManager.default.removeItem(atPath: output) }
                        let fetched = try await Curl.fetch(
                            tools[.curl], server.baseURL + paths[index], bodyPath: output)
                        #expect(fetched.status == 200, "\(fetched.process.transcript)")
                        let body = [UInt8](FileManager.default.contents(atPath: output) ?? Data())
                        #expect(body.count == Self.size, "cycle \(cycle) file \(index)")
                        expectSameBytes(
                            body, TestOrigin.content(name: names[index], range: 0..<Self.size),
                            "cycle \(cycle) file \(index), in full")
                    }
                }
                try await group.waitForAll()
            }
            cachedNames += names

            // Everything read is now cached exactly once: the index counts each file's bytes once.
            // (A fetch records its last span just after its reader finished, so allow it a moment.)
            var statistics = try await TunerProcess.cacheStatistics(data: data)
            for _ in 0..<50 where statistics["bytes"] as? Int != cachedNames.count * Self.size {
                try await Task.sleep(for: .milliseconds(100))
                statistics = try await TunerProcess.cacheStatistics(data: data)
            }
            #expect(statistics["entries"] as? Int == cachedNames.count, "cycle \(cycle): \(statistics)")
            #expect(statistics["bytes"] as? Int == cachedNames.count * Self.size, "cycle \(cycle): \(statistics)")

            let stopped = await server.stop()
            #expect(stopped.status == 0 && !stopped.signaled, "cycle \(cycle): \(server.log)")
        }
        try await origin.shutdown()
    }
}

extension Array {
    /// The elements dealt round-robin into `count` groups.
    func chunked(into count: Int) -> [[Element]] {
        var groups = [[Element]](repeating: [], count: count)
        for (index, element) in enumerated() { groups[index % count].append(element) }
        return groups.filter { !$0.isEmpty }
    }
}
