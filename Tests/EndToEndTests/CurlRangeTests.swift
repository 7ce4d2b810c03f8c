import Foundation
import Testing
import TunerTesting

/// curl's range requests through the running binary, cold and then from the cache.
@Suite struct CurlRangeTests {
    @Test func curlRangesFullGetsAndHeadAnswerLikeTheOrigin() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)

        let size = 5_000_123
        let name = "ranges.mp4"
        let url = try await TunerProcess.proxyURL(for: origin.baseURL + "/files/\(name)?size=\(size)", data: data)
        func expected(_ range: Range<Int>) -> [UInt8] { TestOrigin.content(name: name, range: range) }

        // Twice: the first pass is cold (probe, then gap fetches), the second comes from disk.
        for pass in ["cold", "cached"] {
            let first = try await Curl.fetch(curl, url, options: ["-r", "0-99"])
            #expect(first.status == 206, "\(pass): \(first.process.transcript)")
            #expect(first.header("Content-Range") == "bytes 0-99/\(size)", "\(pass)")
            #expect(first.header("Content-Length") == "100", "\(pass)")
            expectSameBytes(first.body, expected(0..<100), "\(pass) -r 0-99")

            let tail = try await Curl.fetch(curl, url, options: ["-r", "1000-"])
            #expect(tail.status == 206, "\(pass)")
            #expect(tail.header("Content-Range") == "bytes 1000-\(size - 1)/\(size)", "\(pass)")
            expectSameBytes(tail.body, expected(1000..<size), "\(pass) -r 1000-")

            let suffix = try await Curl.fetch(curl, url, options: ["-r", "-500"])
            #expect(suffix.status == 206, "\(pass)")
            #expect(suffix.header("Content-Range") == "bytes \(size - 500)-\(size - 1)/\(size)", "\(pass)")
            expectSameBytes(suffix.body, expected((size - 500)..<size), "\(pass) -r -500")

            let middle = try await Curl.fetch(curl, url, options: ["-r", "2500000-2600000"])
            #expect(middle.status == 206, "\(pass)")
            expectSameBytes(middle.body, expected(2_500_000..<2_600_001), "\(pass) -r 2500000-2600000")

            let full = try await Curl.fetch(curl, url)
            #expect(full.status == 200, "\(pass)")
            #expect(full.header("Content-Length") == "\(size)", "\(pass)")
            #expect(full.header("Accept-Ranges") == "bytes", "\(pass)")
            expectSameBytes(full.body, expected(0..<size), "\(pass) full GET")

            let head = try await Curl.fetch(curl, url, options: ["-I"])
            #expect(head.status == 200, "\(pass): \(head.process.transcript)")
            #expect(head.header("Content-Length") == "\(size)", "\(pass)")
            #expect(head.header("Accept-Ranges") == "bytes", "\(pass)")
            #expect(head.header("Content-Type") == "video/mp4", "\(pass)")

            let beyond = try await Curl.fetch(curl, url, options: ["-r", "\(size)-"])
            #expect(beyond.status == 416, "\(pass)")
            #expect(beyond.header("Content-Range") == "bytes */\(size)", "\(pass)")

            if pass == "cold" { origin.resetCounters() }
        }
        #expect(origin.bodyBytesSent == 0, "the second pass is served from the cache, costing the origin nothing")

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }

    @Test func parallelCurlsOfOneColdFileShareOneOriginFetch() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)
        let size = 20_000_000
        let name = "shared.mp4"
        // A slow origin, so the four downloads overlap.
        let url = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/\(name)?size=\(size)&drip=262144,5", data: data)
        let expected = TestOrigin.content(name: name, range: 0..<size)

        try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for _ in 0..<4 {
                group.addTask { try await Curl.fetch(tools[.curl], url) }
            }
            for try await fetched in group {
                #expect(fetched.status == 200, "\(fetched.process.transcript)")
                expectSameBytes(fetched.body, expected, "one of four parallel downloads")
            }
        }
        #expect(
            origin.bodyBytesSent < 2 * size,
            "four players of one cold file cost about one download, not four: \(origin.bodyBytesSent)")

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }
}
