import Crypto
import Foundation
import Testing
import TunerTesting

/// Downloads through the real `tuner` binary: `kill -9` of `tuner serve` in the middle of many
/// downloads, and the CLI working on the data folder without a server.
@Suite struct TransfersEndToEndTests {
    static let files = 20
    static let size = 50 << 20

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(file path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The tasks as `tuner transfers list --json` prints them (the CLI finds the server itself).
    static func list(data: String) async throws -> [[String: Any]] {
        let result = try await TunerProcess.run(["transfers", "list", "--json", "--data", data])
        guard result.succeeded,
            let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any],
            let transfers = object["transfers"] as? [[String: Any]]
        else { throw EndToEndError("transfers list failed: \(result.output) \(result.errorOutput)") }
        return transfers
    }

    @Test func killDashNineDuringTwentyDownloadsLosesNothingAndRefetchesLittle() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        // Every file is the same generated content (the query differs), so one checksum serves all.
        let expected = Self.sha256(TestOrigin.content(name: "movie.bin", range: 0..<Self.size))
        let urls = (0..<Self.files).map { origin.baseURL + "/files/movie.bin?size=\(Self.size)&drip=131072,50&n=\($0)" }
        let list = workspace.file("urls.txt")
        try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        // All twenty at once, syncing every 100 ms, so each kill loses little.
        let environment = [
            "TUNER_TRANSFERS_MAX_ACTIVE": "20", "TUNER_TRANSFERS_PER_HOST": "20", "TUNER_TRANSFERS_SYNC_MS": "100",
        ]

        var server = try await TunerProcess.serve(data: data, environment: environment)
        let added = try await TunerProcess.run(["download", "--input-file", list, "--data", data])
        #expect(added.succeeded, "\(added.output) \(added.errorOutput)")
        #expect(added.output.split(separator: "\n").filter { $0.hasPrefix("queued") }.count == Self.files)

        var committedAtKills: [Int] = []
        for _ in 1...3 {
            try await Task.sleep(for: .seconds(3))
            await server.kill9()
            let afterKill = try await Self.list(data: data)  // no server now: read from the folder
            committedAtKills.append(afterKill.reduce(0) { $0 + ($1["committedBytes"] as? Int ?? 0) })
            server = try await TunerProcess.serve(data: data, environment: environment)
        }
        print("committed bytes after each kill: \(committedAtKills)")
        #expect(
            committedAtKills.last! > 0 && committedAtKills.last! < Self.files * Self.size,
            "the kills landed mid-transfer")

        let deadline = ContinuousClock.now + .seconds(100)
        var tasks: [[String: Any]] = []
        while ContinuousClock.now < deadline {
            tasks = try await Self.list(data: data)
            if tasks.count == Self.files,
                tasks.allSatisfy({ ($0["state"] as? String) == "complete" || ($0["state"] as? String) == "error" })
            {
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let stopped = await server.stop()
        #expect(!stopped.timedOut)

        #expect(tasks.count == Self.files)
        var names = Set<String>()
        for task in tasks {
            #expect(
                task["state"] as? String == "complete",
                "\(task["id"] ?? "?"): \(task["errorReason"] ?? "") \(task["history"] ?? "")")
            guard let name = task["destinationName"] as? String else { continue }
            names.insert(name)
            #expect(try Self.sha256(file: data + "/downloads/" + name) == expected, "\(name)")
        }
        #expect(names.count == Self.files)
        let partials =
            (try? FileManager.default.contentsOfDirectory(atPath: data + "/downloads"))?.filter {
                $0.hasSuffix(".partial")
            } ?? []
        #expect(partials.isEmpty)
        let sent = origin.bodyBytesSent
        print(
            """
            origin sent \(sent) bytes for \(Self.files * Self.size): \
            \(String(format: "%.3f", Double(sent) / Double(Self.files * Self.size)))×
            """
        )
        #expect(sent <= Self.files * Self.size * 11 / 10)
        try await origin.shutdown()
    }

    @Test func downloadWaitWorksWithoutAServerAndFailsLoudly() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let size = 1 << 20
        let sha = Self.sha256(TestOrigin.content(name: "one.bin", range: 0..<size))
        let good = try await TunerProcess.run([
            "download", origin.baseURL + "/files/one.bin?size=\(size)&reset=300000", "--sha256", sha, "--out",
            "mine.bin",
            "--header", "X-Test: yes", "--wait", "--data", data,
        ])
        #expect(good.succeeded, "\(good.output) \(good.errorOutput)")
        #expect(good.output.contains("complete 1 mine.bin (\(size) bytes)"), "\(good.output)")
        #expect(good.output.contains("retrying 1 mine.bin (failure 1): "), "the reset is reported: \(good.output)")
        #expect(try Self.sha256(file: data + "/downloads/mine.bin") == sha)
        #expect(
            origin.lastRequestHeaders(path: "/files/one.bin")?.contains { $0.name == "X-Test" && $0.value == "yes" }
                == true)

        let bad = try await TunerProcess.run([
            "download", origin.baseURL + "/files/none.bin?status=404", "--wait", "--data", data,
        ])
        #expect(!bad.succeeded && bad.status == 1)
        #expect(bad.output.contains("404"))

        let listed = try await TunerProcess.run(["transfers", "list", "--data", data])
        #expect(listed.output.contains("complete") && listed.output.contains("error"))
        let failedID = try #require(
            listed.output.split(separator: "\n").first { $0.contains("\terror\t") }?.split(separator: "\t").first)
        let removed = try await TunerProcess.run(["transfers", "rm", String(failedID), "--data", data])
        #expect(removed.succeeded, "\(removed.errorOutput)")
        let unknown = try await TunerProcess.run(["transfers", "retry", "999", "--data", data])
        #expect(!unknown.succeeded && unknown.errorOutput.contains("no transfer has id 999"))
        try await origin.shutdown()
    }
}
