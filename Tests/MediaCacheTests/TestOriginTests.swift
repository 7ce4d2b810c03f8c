import Foundation
import Testing
import TunerTesting

/// The test origin is what every integration test trusts, so its content, ranges and faults are
/// checked here with a real client. curl stands in for it because URLSession on Linux hides too
/// much (redirects, partial bodies) to prove byte-level behaviour.
@Suite struct TestOriginTests {
    @Test func fullGetReturnsGeneratedContentAndValidators() async throws {
        try await withOrigin { origin in
            let size = 1_000_003  // spans many 65,521-byte periods and ends mid-period
            let result = try await Curl.run(["\(origin.baseURL)/files/full.mp4?size=\(size)"])

            #expect(result.exitCode == 0)
            #expect(result.status == 200)
            #expect(result.header("Content-Length") == "\(size)")
            #expect(result.header("Accept-Ranges") == "bytes")
            #expect(result.header("Content-Type") == "video/mp4")
            #expect(result.header("ETag") == TestOrigin.etag(name: "full.mp4", size: size))
            #expect(result.header("Last-Modified") == "Mon, 01 Jan 2024 00:00:00 GMT")
            #expect(result.body == TestOrigin.content(name: "full.mp4", range: 0..<size))
        }
    }

    @Test func contentIsConsistentAcrossSlicesAndDiffersByNameAndVersion() {
        let whole = TestOrigin.content(name: "a", range: 0..<300_000)
        #expect(TestOrigin.content(name: "a", range: 65_000..<140_000) == Array(whole[65_000..<140_000]))
        #expect(TestOrigin.content(name: "b", range: 0..<64) != Array(whole[0..<64]))
        #expect(TestOrigin.content(name: "a", version: 1, range: 0..<64) != Array(whole[0..<64]))
        // Every period differs, so bytes served from a wrong offset are caught.
        #expect(Array(whole[0..<1000]) != Array(whole[65_521..<66_521]))
    }

    @Test func rangeRequestsGetPartialContent() async throws {
        try await withOrigin { origin in
            let size = 1_000_003
            let url = "\(origin.baseURL)/files/range.ts?size=\(size)&type=video/mp2t"

            let middle = try await Curl.run(["-H", "Range: bytes=70000-200000", url])
            #expect(middle.status == 206)
            #expect(middle.header("Content-Range") == "bytes 70000-200000/\(size)")
            #expect(middle.header("Content-Type") == "video/mp2t")
            #expect(middle.body == TestOrigin.content(name: "range.ts", range: 70_000..<200_001))

            let open = try await Curl.run(["-H", "Range: bytes=999000-", url])
            #expect(open.status == 206)
            #expect(open.header("Content-Range") == "bytes 999000-1000002/\(size)")
            #expect(open.body == TestOrigin.content(name: "range.ts", range: 999_000..<size))

            let suffix = try await Curl.run(["-H", "Range: bytes=-100", url])
            #expect(suffix.status == 206)
            #expect(suffix.header("Content-Range") == "bytes 999903-1000002/\(size)")
            #expect(suffix.body == TestOrigin.content(name: "range.ts", range: (size - 100)..<size))

            let beyondEnd = try await Curl.run(["-H", "Range: bytes=999999-5000000", url])
            #expect(beyondEnd.header("Content-Range") == "bytes 999999-1000002/\(size)")
        }
    }

    @Test func unsatisfiableRangeGets416WithTheLength() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run(["-H", "Range: bytes=2000000-", "\(origin.baseURL)/files/x?size=1000"])
            #expect(result.status == 416)
            #expect(result.header("Content-Range") == "bytes */1000")
        }
    }

    @Test func ifRangeWithAnOldValidatorGetsTheWholeBody() async throws {
        try await withOrigin { origin in
            let url = "\(origin.baseURL)/files/ifrange?size=5000"
            let current = TestOrigin.etag(name: "ifrange", size: 5000)

            let matching = try await Curl.run(["-H", "Range: bytes=10-19", "-H", "If-Range: \(current)", url])
            #expect(matching.status == 206)

            let stale = try await Curl.run(["-H", "Range: bytes=10-19", "-H", "If-Range: \"old-5000\"", url])
            #expect(stale.status == 200)
            #expect(stale.body.count == 5000)

            let notModified = try await Curl.run(["-H", "If-None-Match: \(current)", url])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
        }
    }

    @Test func headSendsHeadersWithoutBody() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run(["-I", "\(origin.baseURL)/files/head?size=4096"])
            #expect(result.status == 200)
            #expect(result.header("Content-Length") == "4096")
            #expect(origin.bodyBytesSent == 0)
        }
    }

    @Test func resetDeliversExactlyKBytesThenCloses() async throws {
        try await withOrigin { origin in
            let k = 300_000
            let result = try await Curl.run(["\(origin.baseURL)/files/reset?size=1000000&reset=\(k)"])
            #expect(result.exitCode != 0)
            #expect(result.status == 200)
            #expect(result.body == TestOrigin.content(name: "reset", range: 0..<k))
            #expect(origin.bodyBytesSent == k)
        }
    }

    /// `hold=K` sends K bytes and then nothing, without closing: curl gives up at its deadline
    /// (exit 28) with exactly those bytes; `failfirst=1` answers the next request in full.
    @Test func holdKeepsTheConnectionOpenAfterKBytes() async throws {
        try await withOrigin { origin in
            let k = 5_000
            let url = "\(origin.baseURL)/files/hold?size=100000&hold=\(k)&failfirst=1"
            let held = try await Curl.run(["--max-time", "1", url])
            #expect(held.exitCode == 28, "curl should time out waiting, not see a close")
            #expect(held.body == TestOrigin.content(name: "hold", range: 0..<k))
            let next = try await Curl.run([url])
            #expect(next.exitCode == 0 && next.body == TestOrigin.content(name: "hold", range: 0..<100_000))
        }
    }

    @Test func hardResetAbortsTheTransfer() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run(["\(origin.baseURL)/files/rst?size=100000&reset=1000&rst=1"])
            #expect(result.exitCode != 0)
            #expect(result.body.count <= 1000)
        }
    }

    @Test func badLengthSendsTheRealBytesThenCloses() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run(["\(origin.baseURL)/files/bad?size=10000&badlength=500"])
            #expect(result.exitCode != 0)
            #expect(result.header("Content-Length") == "10500")
            #expect(result.body == TestOrigin.content(name: "bad", range: 0..<10_000))
        }
    }

    @Test func statusFaultRepliesWithThatStatusAndRetryAfter() async throws {
        try await withOrigin { origin in
            let unavailable = try await Curl.run(["\(origin.baseURL)/files/s?size=100&status=503&retryafter=7"])
            #expect(unavailable.status == 503)
            #expect(unavailable.header("Retry-After") == "7")

            let missing = try await Curl.run(["\(origin.baseURL)/files/s?size=100&status=404"])
            #expect(missing.status == 404)
            #expect(missing.header("Retry-After") == nil)
            #expect(origin.bodyBytesSent == 0)
        }
    }

    @Test func noRangeAndChunkedFaults() async throws {
        try await withOrigin { origin in
            let ignored = try await Curl.run([
                "-H", "Range: bytes=0-9", "\(origin.baseURL)/files/n?size=3000&norange=1",
            ])
            #expect(ignored.status == 200)
            #expect(ignored.body.count == 3000)

            let chunked = try await Curl.run(["\(origin.baseURL)/files/c?size=700000&chunked=1"])
            #expect(chunked.exitCode == 0)
            #expect(chunked.header("Content-Length") == nil)
            #expect(chunked.header("Transfer-Encoding") == "chunked")
            #expect(chunked.body == TestOrigin.content(name: "c", range: 0..<700_000))
        }
    }

    @Test func dripAndDelaySlowTheResponseButKeepTheBytes() async throws {
        try await withOrigin { origin in
            let start = ContinuousClock.now
            let result = try await Curl.run(["\(origin.baseURL)/files/d?size=3000&drip=1000,30&delay=50"])
            // A lower bound only: 50 ms delay plus two 30 ms pauses between three drips.
            #expect(ContinuousClock.now - start >= .milliseconds(100))
            #expect(result.body == TestOrigin.content(name: "d", range: 0..<3000))
        }
    }

    @Test func bumpVersionChangesETagAndBytes() async throws {
        try await withOrigin { origin in
            let url = "\(origin.baseURL)/files/bump?size=2048"
            let before = try await Curl.run([url])
            origin.bumpVersion("bump")
            let after = try await Curl.run([url])

            #expect(origin.version(of: "bump") == 1)
            #expect(before.header("ETag") != after.header("ETag"))
            #expect(before.header("Last-Modified") != after.header("Last-Modified"))
            #expect(after.header("ETag") == TestOrigin.etag(name: "bump", version: 1, size: 2048))
            #expect(after.body == TestOrigin.content(name: "bump", version: 1, range: 0..<2048))
            #expect(after.body != before.body)
        }
    }

    @Test func flipChangesETagOnEveryRequest() async throws {
        try await withOrigin { origin in
            let url = "\(origin.baseURL)/files/flip?size=10&flip=1"
            let first = try await Curl.run([url])
            let second = try await Curl.run([url])
            #expect(first.header("ETag") == TestOrigin.etag(name: "flip", version: 0, size: 10))
            #expect(second.header("ETag") == TestOrigin.etag(name: "flip", version: 1, size: 10))
        }
    }

    @Test func redirectChainEndsAtTheFileWithItsQuery() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run([
                "-L", "-w", "%{num_redirects}", "\(origin.baseURL)/redirect/2/files/r.bin?size=5000",
            ])
            #expect(result.status == 200)
            #expect(result.writeOut == "3")  // 2 → 1 → 0 → /files/r.bin
            #expect(result.body == TestOrigin.content(name: "r.bin", range: 0..<5000))
            #expect(origin.requests(path: "/redirect/2/files/r.bin") == 1)
            #expect(origin.requests(path: "/redirect/0/files/r.bin") == 1)
            #expect(origin.requests(path: "/files/r.bin") == 1)
            #expect(origin.requestCount == 4)
        }
    }

    @Test func redirectToPointsAnywhere() async throws {
        try await withOrigin { origin in
            let result = try await Curl.run(["\(origin.baseURL)/redirect-to?url=file%3A%2F%2F%2Fetc%2Fpasswd"])
            #expect(result.status == 302)
            #expect(result.header("Location") == "file:///etc/passwd")
        }
    }

    @Test func unknownPathsAre404() async throws {
        try await withOrigin { origin in
            let unknown = try await Curl.run(["\(origin.baseURL)/nothing/here"])
            #expect(unknown.status == 404)
            let noDirectory = try await Curl.run(["\(origin.baseURL)/static/x"])
            #expect(noDirectory.status == 404)
        }
    }

    @Test func bodyBytesSentCountsContentAcrossRequests() async throws {
        try await withOrigin { origin in
            _ = try await Curl.run(["\(origin.baseURL)/files/count?size=100000"])
            _ = try await Curl.run(["-H", "Range: bytes=0-999", "\(origin.baseURL)/files/count?size=100000"])
            _ = try await Curl.run(["\(origin.baseURL)/missing"])
            try await eventually { origin.bodyBytesSent == 101_000 }
            #expect(origin.requestCount == 3)
            #expect(origin.requests(path: "/files/count") == 2)

            origin.resetCounters()
            #expect(origin.bodyBytesSent == 0)
            #expect(origin.requestCount == 0)
            #expect(origin.requests(path: "/files/count") == 0)
        }
    }

    @Test func keepAliveReusesTheConnection() async throws {
        try await withOrigin { origin in
            let url = "\(origin.baseURL)/files/k?size=200000"
            let result = try await Curl.run(["-w", "%{num_connects},", url, url, url])
            #expect(result.writeOut == "1,0,0,")
            #expect(
                result.body == TestOrigin.content(name: "k", range: 0..<200_000)
                    + TestOrigin.content(name: "k", range: 0..<200_000)
                    + TestOrigin.content(name: "k", range: 0..<200_000))
        }
    }

    @Test func faultPlanAppliesOnlyWithoutExplicitFaults() async throws {
        try await withOrigin { origin in
            let url = "\(origin.baseURL)/files/plan?size=50000"
            origin.faults = FaultPlan(serverErrorProbability: 1, seed: 1)
            #expect(try await Curl.run([url]).status == 503)
            #expect(try await Curl.run([url + "&delay=0"]).status == 200)

            origin.faults = FaultPlan(ignoreRangeProbability: 1, seed: 2)
            let ignored = try await Curl.run(["-H", "Range: bytes=0-9", url])
            #expect(ignored.status == 200)
            #expect(ignored.body.count == 50_000)

            origin.faults = FaultPlan(resetProbability: 1, seed: 3)
            let reset = try await Curl.run([url])
            #expect(reset.exitCode != 0)
            #expect(reset.body.count < 50_000)
            #expect(reset.body == TestOrigin.content(name: "plan", range: 0..<reset.body.count))

            origin.faults = .none
            #expect(try await Curl.run([url]).body.count == 50_000)
        }
    }

    @Test func servesARealDirectoryWithRanges() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "test-origin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("hls"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = TestOrigin.content(name: "static", range: 0..<600_000)
        try Data(bytes).write(to: directory.appendingPathComponent("hls/seg 1.ts"))

        try await withOrigin { origin in
            origin.serveDirectory(directory.path)
            let whole = try await Curl.run(["\(origin.baseURL)/static/hls/seg%201.ts"])
            #expect(whole.status == 200)
            #expect(whole.header("Content-Type") == "video/mp2t")
            #expect(whole.header("ETag") != nil)
            #expect(whole.body == bytes)

            let part = try await Curl.run([
                "-H", "Range: bytes=300000-300009", "\(origin.baseURL)/static/hls/seg%201.ts",
            ])
            #expect(part.status == 206)
            #expect(part.body == Array(bytes[300_000..<300_010]))

            #expect(try await Curl.run(["\(origin.baseURL)/static/hls/../../etc/passwd"]).status == 404)
            #expect(try await Curl.run(["\(origin.baseURL)/static/hls/%2E%2E/%2E%2E/etc/passwd"]).status == 404)
        }
    }

    @Test func slowClientHoldsBackTheServer() async throws {
        try await withOrigin { origin in
            // 512 MiB to a client reading 1 MB/s for one second: with backpressure the server has
            // handed the socket only what fits in the kernel's buffers, not the whole body.
            let result = try await Curl.run([
                "--limit-rate", "1M", "--max-time", "1", "\(origin.baseURL)/files/slow?size=536870912",
            ])
            #expect(result.exitCode != 0)
            #expect(origin.bodyBytesSent < 64 << 20)

            // The abandoned response leaves the origin healthy.
            #expect(try await Curl.run(["\(origin.baseURL)/files/after?size=10"]).status == 200)
        }
    }
}

// MARK: - Helpers

private func withOrigin(_ body: (TestOrigin) async throws -> Void) async throws {
    let origin = try await TestOrigin.start()
    do {
        try await body(origin)
    } catch {
        try await origin.shutdown()
        throw error
    }
    try await origin.shutdown()
}

/// Waits for a condition that becomes true on the origin's event loop right after the client
/// has already seen the bytes (counters are updated when the socket write completes).
private func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<200 where !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
    #expect(condition())
}

/// One run of the curl command line, with the last response's status and headers parsed.
private struct Curl {
    var exitCode: Int32
    var body: [UInt8]
    /// The last response's status line and headers, after any redirects curl followed.
    var status: Int
    var headers: [(name: String, value: String)]
    /// What `-w` printed.
    var writeOut: String

    func header(_ name: String) -> String? {
        headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    static func run(_ arguments: [String]) async throws -> Curl {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headerFile = directory.appendingPathComponent("headers")
        // curl pairs the n-th `-o` with the n-th URL; with several URLs (the keep-alive test) the
        // bodies are concatenated in order.
        let urlCount = arguments.filter { $0.hasPrefix("http://") }.count
        let bodyFiles = (0..<urlCount).map { directory.appendingPathComponent("body\($0)") }

        // ExternalCommand, not Foundation's Process: see TunerTesting.ChildProcess.
        let curl = try await ExternalCommand.run(
            "curl",
            ["-s", "--http1.1", "-D", headerFile.path]
                + bodyFiles.flatMap { ["-o", $0.path] } + arguments)
        let exitCode = curl.status
        let writeOut = curl.output
        let body = bodyFiles.flatMap { (try? [UInt8](Data(contentsOf: $0))) ?? [] }

        let headerText = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        // With -L or several URLs the file holds every response; the last one is what counts.
        let lastBlock = headerText.components(separatedBy: "\r\n\r\n").last { !$0.isEmpty } ?? ""
        var lines = lastBlock.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Curl(exitCode: exitCode, body: body, status: status, headers: headers, writeOut: writeOut)
    }
}
