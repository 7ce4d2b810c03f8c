import Foundation
import Testing
import TunerTesting

/// `tuner watch` as a user runs it, beside a real `tuner serve`: it shows a download's progress
/// from the live events, and when the server restarts mid-download it says so, reconnects,
/// catches up and still sees the download finish.
@Suite(.serialized) struct WatchEndToEndTests {
    @Test("tuner watch follows a download across a server restart")
    func watchFollowsAcrossARestart() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let files = try await TestOrigin.start()
        let data = workspace.file("data")
        var server = try await TunerProcess.serve(data: data, arguments: ["--allow-fetch", "loopback"])
        let port = server.port
        // About 50 seconds of download (8 KiB every 100 ms): time enough for the watcher to start
        // and the server to restart even while the whole suite runs (a watcher started 25 s
        // late has been seen).
        let added = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/transfers",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"url": "\#(files.baseURL)/files/slow.bin?size=4000000&drip=8192,100"}"#,
            ])
        #expect(added.status == 201)

        let output = workspace.file("watch.out")
        let errors = workspace.file("watch.err")
        let watch = try ChildProcess(
            TunerProcess.binary, ["watch", "--until-idle", "--data", data],
            environment: Subprocess.childEnvironment(), standardOutput: .file(output), standardError: .file(errors))
        // Once it has shown progress, the server goes away and comes back on the same port.
        // A progress line, not the final one: the restart must fall in the middle.
        var shownBeforeRestart = ""
        for _ in 0..<2400 {
            shownBeforeRestart = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if shownBeforeRestart.contains("slow.bin") { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(
            shownBeforeRestart.contains("slow.bin") && !shownBeforeRestart.contains("complete"),
            "the download must still run when the server stops: \(shownBeforeRestart)")
        _ = await server.stop()
        try await Task.sleep(for: .milliseconds(300))
        server = try await TunerProcess.serve(
            data: data, arguments: ["--allow-fetch", "loopback", "--port", String(port)])

        let ended = try await withThrowingTaskGroup(of: ChildProcess.Termination?.self) { group in
            group.addTask { await watch.wait() }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if ended == nil { watch.send(SIGKILL) }
        _ = await server.stop()
        try await files.shutdown()
        let shown = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(ended?.status == 0 && ended?.signaled == false, "watch ended: \(String(describing: ended))\n\(said)")
        #expect(shown.contains("slow.bin"), "progress shown: \(shown)")
        #expect(shown.contains("complete"), "the end shown: \(shown)")
        #expect(said.contains("lost the server"), "\(said)")
        #expect(said.contains("reconnected"), "\(said)")
        #expect(said.contains("the server restarted"), "\(said)")
    }
}
