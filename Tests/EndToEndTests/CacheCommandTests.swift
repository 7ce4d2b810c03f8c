import Foundation
import Testing
import TunerTesting

/// `tuner cache …` both ways: through a running server (found via `<data>/server.url`) and, with
/// no server, on the data folder itself.
@Suite struct CacheCommandTests {
    @Test func cacheCommandsActOnTheRunningServer() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        // Through a server, exports go only where the user allowed (--files-root).
        let exports = workspace.file("exports")
        let server = try await TunerProcess.serve(data: data, arguments: ["--files-root", exports])

        let stats = try await TunerProcess.run(["cache", "stats", "--data", data])
        #expect(stats.succeeded, "\(stats.transcript)")
        #expect(stats.output.contains("entries:"), "\(stats.output)")
        let empty = try await TunerProcess.cacheStatistics(data: data)
        #expect(empty["entries"] as? Int == 0 && empty["bytes"] as? Int == 0, "\(empty)")

        // Preload the first MiB of a 3 MB file through the server.
        let size = 3_000_000
        let name = "served.mp4"
        let originURL = origin.baseURL + "/files/\(name)?size=\(size)"
        let preload = try await TunerProcess.run(["cache", "preload", originURL, "--bytes", "1MiB", "--data", data])
        #expect(preload.succeeded, "\(preload.transcript)")
        #expect(
            preload.output.contains("preloaded 1048576 of 1048576 bytes (100%)"),
            "progress is printed: \(preload.output)")
        #expect(preload.output.contains("preloaded \(originURL)"), "\(preload.output)")
        let afterPreload = try await Self.statistics(data: data, until: { ($0["bytes"] as? Int ?? 0) >= 1 << 20 })
        #expect(afterPreload["entries"] as? Int == 1 && afterPreload["bytes"] as? Int == 1 << 20, "\(afterPreload)")

        // Playing the preloaded part costs the origin nothing.
        let proxied = try await TunerProcess.proxyURL(for: originURL, data: data)
        origin.resetCounters()
        let played = try await Curl.fetch(tools[.curl], proxied, options: ["-r", "0-1048575"])
        #expect(played.status == 206)
        expectSameBytes(played.body, TestOrigin.content(name: name, range: 0..<(1 << 20)), "the preloaded MiB")
        #expect(origin.bodyBytesSent == 0, "the preloaded bytes come from the cache")

        // Export needs the whole file.
        let partialExport = try await TunerProcess.run([
            "cache", "export", originURL, exports + "/early.mp4", "--data", data,
        ])
        #expect(!partialExport.succeeded, "a partly cached file cannot be exported: \(partialExport.transcript)")
        #expect(
            partialExport.errorOutput.contains("not") || partialExport.errorOutput.contains("409"),
            "\(partialExport.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: exports + "/early.mp4"))

        let full = try await Curl.fetch(tools[.curl], proxied)
        #expect(full.status == 200)
        _ = try await Self.statistics(data: data, until: { $0["bytes"] as? Int == size })
        let outside = try await TunerProcess.run([
            "cache", "export", originURL, workspace.file("outside.mp4"), "--data", data,
        ])
        #expect(!outside.succeeded && outside.errorOutput.contains("--files-root"), "\(outside.transcript)")
        #expect(!FileManager.default.fileExists(atPath: workspace.file("outside.mp4")))
        let exported = exports + "/exported.mp4"
        let export = try await TunerProcess.run(["cache", "export", originURL, exported, "--data", data])
        #expect(export.succeeded, "\(export.transcript)")
        expectSameBytes(
            [UInt8](FileManager.default.contents(atPath: exported) ?? Data()),
            TestOrigin.content(name: name, range: 0..<size), "the exported file")
        let exportAgain = try await TunerProcess.run(["cache", "export", originURL, exported, "--data", data])
        #expect(!exportAgain.succeeded, "export never overwrites a file: \(exportAgain.transcript)")

        // Trimming through the server: a budget above what is held evicts nothing, zero evicts it.
        let keep = try await TunerProcess.run(["cache", "trim", "--to", "1GiB", "--data", data])
        #expect(keep.succeeded && keep.output.contains("evicted 0 resources"), "\(keep.transcript)")
        let trim = try await TunerProcess.run(["cache", "trim", "--to", "0", "--data", data])
        #expect(trim.succeeded && trim.output.contains("evicted 1 resources (\(size) bytes)"), "\(trim.transcript)")
        let trimmed = try await TunerProcess.cacheStatistics(data: data)
        #expect(trimmed["entries"] as? Int == 0 && trimmed["bytes"] as? Int == 0, "\(trimmed)")

        let clear = try await TunerProcess.run(["cache", "clear", "--data", data])
        #expect(clear.succeeded && clear.output.contains("cache cleared"), "\(clear.transcript)")
        let cleared = try await TunerProcess.cacheStatistics(data: data)
        #expect(cleared["entries"] as? Int == 0 && cleared["bytes"] as? Int == 0, "\(cleared)")
        #expect(
            [UInt8](FileManager.default.contents(atPath: exported) ?? Data()).count == size,
            "an exported file outlives the cache it came from")

        // An explicit --server that does not answer is an error, not a silent local fallback.
        let wrongServer = try await TunerProcess.run([
            "cache", "stats", "--server", "http://127.0.0.1:1", "--data", data,
        ])
        #expect(!wrongServer.succeeded && wrongServer.errorOutput.contains("127.0.0.1:1"), "\(wrongServer.transcript)")

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }

    /// An offline `tuner cache` command opens the cache alone: on a fresh folder it makes the
    /// cache's index and no `tuner.sqlite` (the catalog, transfers and logins stay closed).
    @Test func offlineCacheCommandsOpenOnlyTheCache() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        for command in [["cache", "stats"], ["cache", "trim", "--to", "0"], ["cache", "clear"]] {
            let run = try await TunerProcess.run(command + ["--data", data])
            #expect(run.succeeded, "\(command): \(run.transcript)")
        }
        #expect(FileManager.default.fileExists(atPath: data + "/cache/index.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: data + "/tuner.sqlite"), "no database opened")
    }

    @Test func cacheCommandsWorkOnTheDataFolderWithoutAServer() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        // A server ran here once and stopped: the folder has a secret and no server.url.
        let earlier = try await TunerProcess.serve(data: data)
        await earlier.stop()
        #expect(!FileManager.default.fileExists(atPath: earlier.serverURLFile))

        let stats = try await TunerProcess.run(["cache", "stats", "--data", data])
        #expect(stats.succeeded && stats.output.contains("entries:        0"), "\(stats.transcript)")

        let size = 2_500_000
        let name = "local.mp4"
        let originURL = origin.baseURL + "/files/\(name)?size=\(size)"
        let preload = try await TunerProcess.run(["cache", "preload", originURL, "--bytes", "1MiB", "--data", data])
        #expect(preload.succeeded, "\(preload.transcript)")
        #expect(
            preload.output.contains("preloaded 1048576 of 1048576 bytes (100%)"),
            "progress is printed: \(preload.output)")
        let afterPreload = try await TunerProcess.cacheStatistics(data: data)
        #expect(afterPreload["entries"] as? Int == 1, "\(afterPreload)")
        #expect(
            afterPreload["bytes"] as? Int == 1 << 20,
            "a local preload's bytes are in the index when the command exits: \(afterPreload)")

        let early = try await TunerProcess.run([
            "cache", "export", originURL, workspace.file("early.mp4"), "--data", data,
        ])
        #expect(!early.succeeded, "a partly cached file cannot be exported: \(early.transcript)")

        // The whole file, preloaded locally, then exported locally.
        let preloadAll = try await TunerProcess.run(["cache", "preload", originURL, "--data", data])
        #expect(preloadAll.succeeded, "\(preloadAll.transcript)")
        let all = try await TunerProcess.cacheStatistics(data: data)
        #expect(all["bytes"] as? Int == size, "\(all)")
        let exported = workspace.file("exported.mp4")
        let export = try await TunerProcess.run(["cache", "export", originURL, exported, "--data", data])
        #expect(export.succeeded, "\(export.transcript)")
        expectSameBytes(
            [UInt8](FileManager.default.contents(atPath: exported) ?? Data()),
            TestOrigin.content(name: name, range: 0..<size), "the exported file")

        // A server started on the folder afterwards serves what the CLI cached, origin untouched.
        let server = try await TunerProcess.serve(data: data)
        let proxied = try await TunerProcess.proxyURL(for: originURL, data: data)
        origin.resetCounters()
        let played = try await Curl.fetch(tools[.curl], proxied)
        #expect(played.status == 200, "\(played.process.transcript)")
        expectSameBytes(played.body, TestOrigin.content(name: name, range: 0..<size), "served after a local preload")
        #expect(origin.bodyBytesSent == 0, "the server serves the locally preloaded bytes from disk")
        await server.stop()

        // Trimming the folder itself: a pinned resource stays, an unpinned one goes.
        let pin = try await TunerProcess.run(["cache", "pin", originURL, "--data", data])
        #expect(pin.succeeded, "\(pin.transcript)")
        let pinnedTrim = try await TunerProcess.run(["cache", "trim", "--to", "0", "--data", data])
        #expect(pinnedTrim.succeeded && pinnedTrim.output.contains("evicted 0 resources"), "\(pinnedTrim.transcript)")
        let unpin = try await TunerProcess.run(["cache", "pin", originURL, "--off", "--data", data])
        #expect(unpin.succeeded, "\(unpin.transcript)")
        let trim = try await TunerProcess.run(["cache", "trim", "--to", "0", "--data", data])
        #expect(trim.succeeded && trim.output.contains("evicted 1 resources (\(size) bytes)"), "\(trim.transcript)")
        let trimmed = try await TunerProcess.cacheStatistics(data: data)
        #expect(trimmed["entries"] as? Int == 0 && trimmed["bytes"] as? Int == 0, "\(trimmed)")
        // Everything is gone now; fill it again for the clear below.
        let refill = try await TunerProcess.run(["cache", "preload", originURL, "--data", data])
        #expect(refill.succeeded, "\(refill.transcript)")

        let clear = try await TunerProcess.run(["cache", "clear", "--data", data])
        #expect(clear.succeeded && clear.output.contains("cache cleared"), "\(clear.transcript)")
        let cleared = try await TunerProcess.cacheStatistics(data: data)
        #expect(cleared["entries"] as? Int == 0 && cleared["bytes"] as? Int == 0, "\(cleared)")
        let gone = try await TunerProcess.run([
            "cache", "export", originURL, workspace.file("after-clear.mp4"), "--data", data,
        ])
        #expect(!gone.succeeded, "nothing to export after a clear: \(gone.transcript)")

        try await origin.shutdown()
    }

    /// The statistics once `condition` holds (a fetch records its last span just after its reader
    /// finished), or after 5 s whatever they are.
    static func statistics(data: String, until condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var statistics = try await TunerProcess.cacheStatistics(data: data)
        for _ in 0..<50 where !condition(statistics) {
            try await Task.sleep(for: .milliseconds(100))
            statistics = try await TunerProcess.cacheStatistics(data: data)
        }
        return statistics
    }
}
