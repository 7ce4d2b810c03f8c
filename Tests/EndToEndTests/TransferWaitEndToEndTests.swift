import Crypto
import Foundation
import Testing
import TunerTesting

/// `--wait` through the real binary: against a running `tuner serve` (the CLI follows the
/// server's tasks) and on a terminal (a pseudo-terminal from util-linux `script`), where both the
/// in-process and the server path draw redrawn progress bars.
@Suite struct TransferWaitEndToEndTests {
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(file path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test func waitAgainstARunningServerPrintsPlainLinesAndExitsWithTheOutcome() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        // Uploads through the server read local files only inside --files-root.
        let server = try await TunerProcess.serve(data: data, arguments: ["--files-root", workspace.path])
        let size = 1 << 20
        let sha = Self.sha256(TestOrigin.content(name: "one.bin", range: 0..<size))

        // Queued on the server (it downloads), followed by the CLI until complete.
        let good = try await TunerProcess.run([
            "download", origin.baseURL + "/files/one.bin?size=\(size)&reset=300000&failfirst=1", "--sha256", sha,
            "--out", "mine.bin",
            "--wait", "--data", data,
        ])
        #expect(good.succeeded, "\(good.transcript)")
        let lines = good.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "queued 1 mine.bin", "\(good.transcript)")
        #expect(lines.last == "complete 1 mine.bin (\(size) bytes)", "\(good.transcript)")
        #expect(
            !good.output.contains("\u{1B}") && !good.output.contains("\r"), "no terminal control characters in a pipe")
        #expect(Self.sha256(file: data + "/downloads/mine.bin") == sha)
        #expect(
            server.log.contains("transfer attempt failed"),
            "the server, not the CLI, ran the download (and retried the reset)")

        // A failing task: its error on stdout and exit status 1.
        let bad = try await TunerProcess.run([
            "download", origin.baseURL + "/files/none.bin?status=404", "--wait", "--data", data,
        ])
        #expect(bad.status == 1 && !bad.signaled, "\(bad.transcript)")
        #expect(bad.output.contains("error 2 none.bin: ") && bad.output.contains("404"), "\(bad.transcript)")
        #expect(bad.output.contains("0 of 1 transfers complete"), "\(bad.transcript)")

        // A task deleted while the CLI waits for it: exit 1, saying so. The download would take
        // over an hour (1 KiB a second), so it cannot end by itself first, however slow the machine.
        async let slow = TunerProcess.run(
            [
                "download", origin.baseURL + "/files/slow.bin?size=\(4 << 20)&drip=1024,1000", "--wait", "--data", data,
            ], timeout: .seconds(120))
        var queued = false
        for _ in 0..<600 where !queued {
            queued = (try? await HTTP.status(server.baseURL + "/api/v1/transfers/3")) == 200
            if !queued { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(queued, "the slow download was queued")
        // --server: never act on the data folder behind the running server's back.
        let removed = try await TunerProcess.run(["transfers", "rm", "3", "--server", server.baseURL, "--data", data])
        #expect(removed.succeeded, "\(removed.transcript)")
        let deleted = try await slow
        #expect(deleted.status == 1, "\(deleted.transcript)")
        #expect(deleted.output.contains("deleted 3 slow.bin"), "\(deleted.transcript)")

        // An upload through the server, to the server's own tus endpoint.
        let file = workspace.file("clip.bin")
        let bytes = (0..<(600 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) }
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let upload = try await TunerProcess.run([
            "upload", file, "--to", server.baseURL + "/api/v1/uploads", "--tus", "--wait", "--data", data,
        ])
        #expect(upload.succeeded, "\(upload.transcript)")
        // A finished upload's name is where it went.
        #expect(upload.output.contains("complete 4 \(server.baseURL)/api/v1/uploads/"), "\(upload.transcript)")
        let stored = try FileManager.default.contentsOfDirectory(atPath: data + "/uploads").filter { !$0.contains(".") }
        #expect(
            stored.count == 1
                && stored.first.flatMap { Self.sha256(file: data + "/uploads/" + $0) } == Self.sha256(bytes))

        await server.stop()
        try await origin.shutdown()
    }

    /// On a terminal, both paths redraw a bar (`\r`, erase, percentage and brackets) and end with
    /// the final line; a failure still exits 1.
    @Test func waitOnATerminalDrawsProgressBarsWithAndWithoutAServer() async throws {
        guard let tools = Tools.require(.script) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let size = 1 << 20
        let sha = Self.sha256(TestOrigin.content(name: "tty.bin", range: 0..<size))
        // 16 chunks 150 ms apart: the download lasts long enough for several redraws.
        let url = origin.baseURL + "/files/tty.bin?size=\(size)&drip=65536,150"

        func onTerminal(_ arguments: [String]) async throws -> ProcessResult {
            let command = ([TunerProcess.binary] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
            return try await Subprocess.run(tools[.script], ["-qec", command, "/dev/null"], timeout: .seconds(60))
        }

        let alone = workspace.file("alone")
        let server = try await TunerProcess.serve(data: workspace.file("served"))
        for data in [alone, server.dataDirectory] {
            let result = try await onTerminal(["download", url, "--out", "tty.bin", "--wait", "--data", data])
            #expect(result.succeeded, "\(result.transcript)")
            #expect(result.output.contains("\r\u{1B}[J"), "the bar is redrawn in place: \(result.transcript)")
            #expect(
                result.output.contains("% [") && result.output.contains("] "),
                "a bar with its percentage: \(result.transcript)")
            #expect(result.output.contains("/1.0 MiB"), "bytes of the total: \(result.transcript)")
            #expect(result.output.contains("complete 1 tty.bin (\(size) bytes)"), "\(result.transcript)")
            #expect(Self.sha256(file: data + "/downloads/tty.bin") == sha)

            let failed = try await onTerminal([
                "download", origin.baseURL + "/files/none.bin?status=404", "--wait", "--data", data,
            ])
            #expect(failed.status == 1, "\(failed.transcript)")
            #expect(failed.output.contains("error 2 none.bin: "), "\(failed.transcript)")
        }
        await server.stop()
        try await origin.shutdown()
    }
}
