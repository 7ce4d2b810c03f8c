import Foundation
import Testing
import TunerTesting

@testable import Transfers

/// File downloads against TestOrigin's faults: each ends complete with the right SHA-256, or in
/// error with the right class and reason.
@Suite struct FileDownloadFaultTests {
    static let size = 2 << 20

    @Test func aCleanDownloadIsCompleteVerifiedAndInPlace() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "clean.bin", size: Self.size)
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("clean.bin", size: Self.size), expectedSHA256: sha))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(done.committedBytes == Int64(Self.size) && done.totalBytes == Int64(Self.size))
        #expect(done.destinationName == "clean.bin")
        #expect(try harness.sha256(ofDownload: "clean.bin") == sha)
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/clean.bin.partial"))
        #expect(done.etag == TestOrigin.etag(name: "clean.bin", size: Self.size))
        await harness.close()
    }

    @Test func resetsMidBodyResumeWithRangesUntilComplete() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "reset.bin", size: Self.size)
        // Every response closes after 300 kB: the file only completes by resuming.
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("reset.bin", size: Self.size, "reset=300000"), expectedSHA256: sha))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        // Resumed, not restarted (a restart could never get past 300 kB): the origin sent each
        // byte about once; the margin covers bytes a reset leaves unread in socket buffers.
        #expect(harness.origin.bodyBytesSent <= Self.size * 5 / 4)
        #expect(
            harness.origin.lastRequestHeaders(path: "/files/reset.bin")?.contains { $0.name.lowercased() == "if-range" }
                == true)
        await harness.close()
    }

    @Test func aStalledResponseIsRetriedAfterTheStallTimeout() async throws {
        var configuration = TransfersHarness.fastConfiguration
        configuration.stallTimeout = 1
        // A loaded machine can make several attempts in a row stall before their first byte;
        // the test is about stalls being retried, not about how many attempts the policy allows.
        configuration.retryPolicy.maximumAttempts = 30
        let harness = try await TransfersHarness(configuration: configuration)
        // 1 MiB: the first answer stalls after 700 kB, the retry's 348 kB fit before its own pause,
        // so one stall is all the test needs however slowly a loaded machine runs it.
        let size = 1 << 20
        let sha = TransfersHarness.sha256(name: "stall.bin", size: size)
        // 700 kB, then a 4 s pause: far longer than the 1 s stall timeout.
        let task = try await harness.manager.add(
            TransferRequest(
                sourceURL: harness.url("stall.bin", size: size, "drip=700000,4000"), expectedSHA256: sha))
        let done = try await harness.waitFinished(task.id, seconds: 400)
        #expect(done.state == .complete)
        #expect(done.history.contains { $0.message.contains("stalled") })
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        await harness.close()
    }

    /// Segments that take twice the stall timeout each, with bytes flowing all along: a slow
    /// link, not a dead one. The manager sees the bytes arrive (before a segment is synced and
    /// counted) and lets the download finish.
    @Test func aSlowHLSDownloadWhoseSegmentsOutlastTheStallTimeoutIsNotStalled() async throws {
        var configuration = TransfersHarness.fastConfiguration
        // 10 s: long next to the 200 ms between bytes even while the whole suite runs in this
        // process (its concurrency pool then runs a ready task up to ~4 s late), short next to a
        // segment.
        configuration.stallTimeout = 10
        let harness = try await TransfersHarness(configuration: configuration)
        await harness.manager.register(HLSDownloadExecutor(httpClient: harness.httpClient))
        let served = harness.directory + "/origin"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let segment = 600_000
        // 6 kB every 200 ms: 20 s per segment, twice the stall timeout.
        let segments = (0..<2).map { harness.url("slow\($0).ts", size: segment, "drip=6000,200") }
        try Data(
            ("#EXTM3U\n#EXT-X-TARGETDURATION:10\n" + segments.map { "#EXTINF:10,\n\($0)\n" }.joined()
                + "#EXT-X-ENDLIST\n").utf8
        )
        .write(to: URL(fileURLWithPath: served + "/slow.m3u8"))
        harness.origin.serveDirectory(served)
        let task = try await harness.manager.add(
            TransferRequest(
                kind: .downloadHLS, sourceURL: harness.origin.baseURL + "/static/slow.m3u8", destinationName: "slow"))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete, "\(done.errorReason ?? "")")
        // Without the liveness signal no segment could ever finish (each attempt is cut after 10 s
        // and a segment needs 20), so the task would end in error. (A stall may still be seen on
        // a machine so loaded that 10 s pass without a byte; it is not asserted away.)
        #expect(done.committedBytes == Int64(2 * segment))
        await harness.close()
    }

    /// A download that would cut into the free-disk reserve is refused before its first byte,
    /// with a reason that says what to do; with room it runs.
    @Test func aDownloadThatWouldFillTheDiskIsRefused() async throws {
        var configuration = TransfersHarness.fastConfiguration
        configuration.tuning.minimumFreeDiskBytes = 1 << 62  // more than any disk here
        let harness = try await TransfersHarness(configuration: configuration)
        let task = try await harness.manager.add(TransferRequest(sourceURL: harness.url("big.bin", size: 100_000)))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .error)
        #expect(done.errorReason?.contains("free some space") == true, "\(done.errorReason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/big.bin"))
        await harness.close()
    }

    @Test func burstsOfServerErrorsAndResetsAreRetried() async throws {
        let harness = try await TransfersHarness()
        harness.origin.faults = FaultPlan(resetProbability: 0.3, serverErrorProbability: 0.4, seed: 7)
        var ids: [Int64] = []
        for index in 0..<4 {
            let name = "burst\(index).bin"
            let task = try await harness.manager.add(
                TransferRequest(
                    sourceURL: harness.url(name, size: Self.size),
                    expectedSHA256: TransfersHarness.sha256(name: name, size: Self.size)))
            ids.append(task.id)
        }
        for id in ids {
            let done = try await harness.waitFinished(id)
            #expect(done.state == .complete, "\(done.history.map(\.message))")
            #expect(
                try harness.sha256(ofDownload: done.destinationName)
                    == TransfersHarness.sha256(name: done.destinationName, size: Self.size))
        }
        // Resumed after every fault (the margin covers bytes a reset leaves unread in socket buffers).
        #expect(harness.origin.bodyBytesSent <= 4 * Self.size * 5 / 4)
        await harness.close()
    }

    @Test func tooManyRequestsHonoursRetryAfterAndANewURLCompletes() async throws {
        let harness = try await TransfersHarness()
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("busy.bin", size: Self.size, "status=429&retryafter=2")))
        let waiting = try await harness.waitFor(task.id) { $0.retryCount >= 1 }
        #expect(waiting.state == .waiting && waiting.errorClass == .transient)
        #expect(waiting.errorReason?.contains("429") == true)
        // The server's 2 s, not the policy's 50 ms backoff.
        #expect(waiting.history.contains { $0.message.contains("retry 1 in 2.0 s") })
        try await harness.manager.changeSource(id: task.id, to: harness.url("busy.bin", size: Self.size))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(
            try harness.sha256(ofDownload: done.destinationName)
                == TransfersHarness.sha256(name: "busy.bin", size: Self.size))
        await harness.close()
    }

    @Test func persistentServerErrorsEndInATransientErrorAfterTheBudget() async throws {
        let harness = try await TransfersHarness()
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("down.bin", size: Self.size, "status=503")))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .error && done.errorClass == .transient)
        #expect(done.errorReason?.contains("503") == true)
        #expect(harness.origin.requests(path: "/files/down.bin") == 7)  // the first attempt and 6 retries
        await harness.close()
    }

    @Test func aServerIgnoringRangeRestartsFromZeroAndSaysSo() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "norange.bin", size: Self.size)
        let task = try await harness.manager.add(
            TransferRequest(
                sourceURL: harness.url("norange.bin", size: Self.size, "norange=1&drip=65536,20"), expectedSHA256: sha))
        try await harness.waitForCommitted(task.id, atLeast: 300_000)
        try await harness.manager.pause(id: task.id)
        let paused = try #require(await harness.manager.task(id: task.id))
        #expect(paused.state == .paused && paused.committedBytes > 0)
        #expect(harness.partialSize(paused) == paused.committedBytes)
        try await harness.manager.resume(id: task.id)
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(
            done.history.contains {
                $0.message.contains("restarted from byte 0") && $0.message.contains("ignored the Range")
            })
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        await harness.close()
    }

    @Test func aChangedResourceRestartsFromZeroWithTheNewVersion() async throws {
        let harness = try await TransfersHarness()
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("flip.bin", size: Self.size, "drip=65536,20")))
        try await harness.waitForCommitted(task.id, atLeast: 300_000)
        try await harness.manager.pause(id: task.id)
        harness.origin.bumpVersion("flip.bin")
        try await harness.manager.resume(id: task.id)
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(
            done.history.contains { $0.message.contains("restarted from byte 0") && $0.message.contains("changed") })
        #expect(
            try harness.sha256(ofDownload: done.destinationName)
                == TransfersHarness.sha256(name: "flip.bin", version: 1, size: Self.size))
        await harness.close()
    }

    @Test func anETagThatFlipsOnEveryRequestNeverMixesVersions() async throws {
        let harness = try await TransfersHarness()
        // flip=1 bumps the version after every request and reset=K cuts every response: no two
        // requests see the same version, so the task must fail rather than splice versions.
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("flipping.bin", size: Self.size, "flip=1&reset=500000")))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .error && done.errorClass == .transient)
        #expect(done.history.contains { $0.message.contains("the resource changed") })
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/flipping.bin"))
        await harness.close()
    }

    @Test func aWrongContentLengthIsNeverCalledComplete() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "badlength.bin", size: Self.size)
        let task = try await harness.manager.add(
            TransferRequest(
                sourceURL: harness.url("badlength.bin", size: Self.size, "badlength=1000"), expectedSHA256: sha))
        let done = try await harness.waitFinished(task.id)
        // The first answer promised 1000 bytes more than it sent: that attempt failed; the next
        // one learned the real length (416, bytes */size) and the checksum confirms the file.
        #expect(done.history.contains { $0.message.contains("attempt failed") })
        #expect(done.state == .complete)
        #expect(done.committedBytes == Int64(Self.size))
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        await harness.close()
    }

    @Test func earlyEndOfAChunkedBodyIsNotComplete() async throws {
        let harness = try await TransfersHarness()
        // Chunked, cut after 100 kB on every request: the end of the body is a broken connection,
        // not the end of the file.
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("cut.bin", size: Self.size, "chunked=1&reset=100000")))
        let first = try await harness.waitFor(task.id) { $0.retryCount >= 1 }
        #expect(first.state != .complete)
        try await harness.manager.cancel(id: task.id)
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/cut.bin"))
        await harness.close()
    }

    @Test func forbiddenNeedsANewURLAndThenCompletes() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "expiring.bin", size: Self.size)
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("expiring.bin", size: Self.size, "status=403"), expectedSHA256: sha))
        let failed = try await harness.waitFinished(task.id)
        #expect(failed.state == .error && failed.errorClass == .needsNewURL)
        #expect(failed.errorReason?.contains("403") == true)
        try await harness.manager.changeSource(id: task.id, to: harness.url("expiring.bin", size: Self.size))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        await harness.close()
    }

    @Test func aChangedURLKeepsThePartialDataWhileTheValidatorsMatch() async throws {
        let harness = try await TransfersHarness()
        let sha = TransfersHarness.sha256(name: "moved.bin", size: Self.size)
        let task = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("moved.bin", size: Self.size, "drip=65536,20"), expectedSHA256: sha))
        try await harness.waitForCommitted(task.id, atLeast: 300_000)
        // Same resource behind a new link (the query differs): resumed, not restarted.
        try await harness.manager.changeSource(id: task.id, to: harness.url("moved.bin", size: Self.size, "token=new"))
        let done = try await harness.waitFinished(task.id)
        #expect(done.state == .complete)
        #expect(!done.history.contains { $0.message.contains("restarted from byte 0") })
        // Less than twice the file: the cancelled request may still have been sending for a
        // moment on a loaded machine, but the bytes before the change were not fetched again.
        #expect(harness.origin.bodyBytesSent < Self.size * 2)
        #expect(try harness.sha256(ofDownload: done.destinationName) == sha)
        await harness.close()
    }

    @Test func permanentFailuresAreNotRetried() async throws {
        let harness = try await TransfersHarness()
        let missing = try await harness.manager.add(
            TransferRequest(sourceURL: harness.url("gone.bin", size: Self.size, "status=404")))
        let wrongSum = try await harness.manager.add(
            TransferRequest(
                sourceURL: harness.url("sum.bin", size: Self.size), expectedSHA256: String(repeating: "0", count: 64)))
        let notFound = try await harness.waitFinished(missing.id)
        #expect(
            notFound.state == .error && notFound.errorClass == .permanent
                && notFound.errorReason?.contains("404") == true)
        #expect(harness.origin.requests(path: "/files/gone.bin") == 1)
        let mismatch = try await harness.waitFinished(wrongSum.id)
        #expect(
            mismatch.state == .error && mismatch.errorClass == .permanent
                && mismatch.errorReason?.contains("checksum mismatch") == true)
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/sum.bin"))
        await harness.close()
    }

    @Test func nameCollisionsGetASuffix() async throws {
        let harness = try await TransfersHarness()
        try FileManager.default.createDirectory(
            atPath: harness.directory + "/downloads", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: harness.directory + "/downloads/same.bin", contents: Data("keep me".utf8))
        let first = try await harness.manager.add(TransferRequest(sourceURL: harness.url("same.bin", size: 1000)))
        let second = try await harness.manager.add(TransferRequest(sourceURL: harness.url("same.bin", size: 1000)))
        #expect(first.destinationName == "same-1.bin" && second.destinationName == "same-2.bin")
        _ = try await harness.waitFinished(first.id)
        _ = try await harness.waitFinished(second.id)
        #expect(FileManager.default.contents(atPath: harness.directory + "/downloads/same.bin") == Data("keep me".utf8))
        #expect(try harness.sha256(ofDownload: "same-2.bin") == TransfersHarness.sha256(name: "same.bin", size: 1000))
        await harness.close()
    }
}
