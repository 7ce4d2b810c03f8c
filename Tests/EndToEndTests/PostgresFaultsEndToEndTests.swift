import Foundation
import Logging
import PostgresNIO
import Testing
import TunerStorage
import TunerTesting

/// Issue 28's faults with a real PostgreSQL of the test's own (`scripts/test-postgres`, never the
/// shared server), stopped as a crash stops it (`pg_ctl stop -m immediate`) while `tuner serve`
/// runs on it.
@Suite struct PostgresFaultsEndToEndTests {
    /// `scripts/test-postgres` of this repository.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/test-postgres").path
    }

    /// A private cluster: started in a folder of its own, stopped and removed afterwards.
    static func withCluster(_ body: (_ url: String, _ folder: String) async throws -> Void) async throws {
        let folder = "/tmp/tuner-pg-faults-\(UUID().uuidString.prefix(8))"
        let started = try await Subprocess.run(script, ["start", folder], timeout: .seconds(120))
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        guard started.succeeded else {
            Issue.record("scripts/test-postgres start failed: \(started.transcript)")
            return
        }
        let url = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try await body(url, folder)
        } catch {
            _ = try? await Subprocess.run(script, ["stop", folder], timeout: .seconds(60))
            throw error
        }
        _ = try await Subprocess.run(script, ["stop", folder], timeout: .seconds(60))
    }

    /// Lost while running: the API answers 503 with Retry-After, a playing stream goes on, and the
    /// API works again when it comes back, without a restart.
    @Test(.enabled(if: TestPostgres.isAvailable))
    func lostWhileRunning() async throws {
        if EndToEndDatabase.skipsSQLiteFileTest("it runs a PostgreSQL of its own") { return }
        guard let tools = Tools.require(.curl) else { return }
        try await Self.withCluster { url, folder in
            let workspace = try Workspace()
            defer { workspace.remove() }
            let data = workspace.file("data")
            let origin = try await TestOrigin.start()
            let playlist = workspace.file("list.m3u")
            try "#EXTM3U\n#EXTINF:-1 group-title=\"News\",Fault News\n\(origin.baseURL)/files/a.ts\n".write(
                toFile: playlist, atomically: true, encoding: .utf8)
            let added = try await TunerProcess.run(["sources", "add", playlist, "--data", data, "--database", url])
            #expect(added.succeeded, "\(added.transcript)")
            let server = try await TunerProcess.serve(
                data: data, arguments: ["--database", url, "--allow-fetch", "loopback"])
            let channels = server.baseURL + "/api/v1/channels"
            let before = try await Curl.fetch(tools[.curl], channels)
            #expect(before.status == 200 && String(decoding: before.body, as: UTF8.self).contains("Fault News"))

            // A stream through the proxy, slow enough to outlast the fault.
            let proxied = try await TunerProcess.proxyURL(
                for: origin.baseURL + "/files/long.bin?size=40000000&drip=65536,100", data: data)
            let stream = try CurlStream(tools[.curl], proxied, directory: workspace.path)
            try await stream.wait(for: "the first 200 KB") { $0.count >= 200_000 }

            let killed = try await Subprocess.run(Self.script, ["kill", folder])
            #expect(killed.succeeded, "\(killed.transcript)")
            let during = try await Curl.fetch(tools[.curl], channels, timeout: .seconds(30))
            #expect(during.status == 503, "\(during.status) \(String(decoding: during.body, as: UTF8.self))")
            #expect(during.header("Retry-After") != nil)
            #expect(!String(decoding: during.body, as: UTF8.self).contains(folder))
            // The stream needs no database: more bytes arrive while PostgreSQL is away.
            let received = stream.body.count
            try await stream.wait(for: "300 KB more while PostgreSQL is down") { $0.count >= received + 300_000 }
            #expect(TestOrigin.content(name: "long.bin", range: 0..<received) == Array(stream.body.prefix(received)))

            let restarted = try await Subprocess.run(Self.script, ["restart", folder], timeout: .seconds(120))
            #expect(restarted.succeeded, "\(restarted.transcript)")
            // The pool reconnects by itself (with backoff): the same server answers again.
            var status = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                status = try await Curl.fetch(tools[.curl], channels, timeout: .seconds(30)).status
                if status == 200 { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(status == 200, "the API never answered again after PostgreSQL came back")
            #expect(server.isRunning)
            _ = await stream.stop()
            await server.stop()
            try await origin.shutdown()
        }
    }

    /// Lost mid-import: the server process of the refresh's `COPY` stops reading (SIGSTOP, so that
    /// Tuner's writes back up behind a full socket), then PostgreSQL is stopped as a crash stops it
    /// (`pg_ctl stop -m immediate`, which kills the stopped process after five seconds). The refresh
    /// answers 503 instead of waiting forever, the earlier import is whole when PostgreSQL is back,
    /// and the server still stops on SIGTERM.
    @Test(.enabled(if: TestPostgres.isAvailable))
    func lostMidImport() async throws {
        if EndToEndDatabase.skipsSQLiteFileTest("it runs a PostgreSQL of its own") { return }
        guard let tools = Tools.require(.curl) else { return }
        try await Self.withCluster { url, folder in
            let workspace = try Workspace()
            defer { workspace.remove() }
            let data = workspace.file("data")
            // Enough rows (about 12 MB of COPY text) to fill the socket's buffers many times over.
            let channels = 60_000
            var playlist = "#EXTM3U\n"
            for index in 0..<channels {
                playlist += "#EXTINF:-1 tvg-id=\"c\(index).fault\" group-title=\"Group \(index % 40)\","
                playlist += "Fault Channel \(index) with a name as long as providers give them\n"
                playlist += "http://127.0.0.1:9/live/user/pass/\(index).ts\n"
            }
            try playlist.write(toFile: workspace.file("list.m3u"), atomically: true, encoding: .utf8)
            let added = try await TunerProcess.run(
                ["sources", "add", workspace.file("list.m3u"), "--data", data, "--database", url],
                timeout: .seconds(300))
            #expect(added.succeeded, "\(added.transcript)")
            let server = try await TunerProcess.serve(
                data: data, arguments: ["--database", url, "--files-root", workspace.path])
            let api = server.baseURL + "/api/v1"

            let refresh = Task {
                try await Curl.fetch(
                    tools[.curl], api + "/sources/1/refresh", options: ["-X", "POST"], timeout: .seconds(180))
            }
            // The refresh's COPY, found from a connection of the test's own.
            let address = try PostgresAddress(url: url)
            let watcher = try await TunerPostgres.open(
                address: address, schemas: [], options: TestPostgres.patientOptions,
                logger: Logger(label: "test.faults"))
            var backend: Int32?
            let deadline = ContinuousClock.now + .seconds(300)
            while backend == nil, ContinuousClock.now < deadline {
                backend = try await watcher.read { connection in
                    try await connection.query(
                        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY%catalog_import%'",
                        logger: Logger(label: "test.faults")
                    ).collect().first?.decode(Int32.self)
                }
                if backend == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            await watcher.close()
            guard let backend else {
                Issue.record("the refresh's COPY never showed in pg_stat_activity")
                refresh.cancel()
                await server.stop()
                return
            }
            let stopped = try await Subprocess.run("/bin/kill", ["-STOP", "\(backend)"])
            #expect(stopped.succeeded, "\(stopped.transcript)")
            // Long enough for Tuner's COPY writes to fill the socket and wait for it to drain.
            try await Task.sleep(for: .seconds(3))
            let killed = try await Subprocess.run(Self.script, ["kill", folder], timeout: .seconds(120))
            #expect(killed.succeeded, "\(killed.transcript)")

            let answer = try await refresh.value
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 503, "\(answer.status) \(text)")
            #expect(answer.header("Retry-After") != nil)
            #expect(!text.contains(folder) && !text.contains("pass"), "\(text)")

            let restarted = try await Subprocess.run(Self.script, ["restart", folder], timeout: .seconds(120))
            #expect(restarted.succeeded, "\(restarted.transcript)")
            // The pool reconnects by itself; the earlier import is whole.
            var total: Int?
            let back = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < back {
                let page = try await Curl.fetch(tools[.curl], api + "/channels?limit=1", timeout: .seconds(30))
                if page.status == 200 {
                    let json = try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any]
                    total = json?["total"] as? Int
                    break
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(
                total == channels, "after the lost import the catalogue holds \(total.map(String.init) ?? "no answer")")
            let ended = await server.stop()
            #expect(!ended.timedOut && ended.status == 0, "tuner serve did not stop on SIGTERM: \(ended)")
        }
    }

    /// Lost mid-download, and the node with it: PostgreSQL stopped as a crash stops it while a
    /// download runs, the node killed (`kill -9`) while it is away. The acknowledged transfer is
    /// still there when PostgreSQL is back, and its claim expires: another node (a data folder of
    /// its own, so another worker) takes it over and finishes it, whole.
    @Test(.enabled(if: TestPostgres.isAvailable))
    func lostMidDownloadWithItsNode() async throws {
        if EndToEndDatabase.skipsSQLiteFileTest("it runs a PostgreSQL of its own") { return }
        guard let tools = Tools.require(.curl) else { return }
        try await Self.withCluster { url, folder in
            let workspace = try Workspace()
            defer { workspace.remove() }
            let origin = try await TestOrigin.start()
            let size = 2_000_000
            let first = try await TunerProcess.serve(
                data: workspace.file("node-a"), arguments: ["--database", url, "--allow-fetch", "loopback"])
            // About twenty seconds of bytes, so that the faults land mid-download on a loaded machine.
            let source = origin.baseURL + "/files/fault.bin?size=\(size)&drip=65536,700"
            let added = try await Curl.fetch(
                tools[.curl], first.baseURL + "/api/v1/transfers",
                options: [
                    "-X", "POST", "-H", "Content-Type: application/json", "--data",
                    #"{"transfers":[{"url":"\#(source)","name":"fault.bin"}]}"#,
                ])
            #expect(added.status == 201, "\(added.status) \(String(decoding: added.body, as: UTF8.self))")
            let list = try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any]
            let id = try #require(((list?["transfers"] as? [[String: Any]])?.first?["id"]) as? Int)
            let transfer = "/api/v1/transfers/\(id)"

            // The first node is downloading it.
            var state = ""
            let started = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < started {
                let answer = try await Curl.fetch(tools[.curl], first.baseURL + transfer, timeout: .seconds(30))
                let json = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                state = json?["state"] as? String ?? ""
                if state == "active", origin.requests(path: "/files/fault.bin") == 1 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(state == "active" && origin.requests(path: "/files/fault.bin") == 1, "before the fault: \(state)")

            let killed = try await Subprocess.run(Self.script, ["kill", folder], timeout: .seconds(120))
            #expect(killed.succeeded, "\(killed.transcript)")
            await first.kill9()
            let restarted = try await Subprocess.run(Self.script, ["restart", folder], timeout: .seconds(120))
            #expect(restarted.succeeded, "\(restarted.transcript)")

            // The second node waits for the dead one's claim to expire (a minute), then runs it.
            let second = try await TunerProcess.serve(
                data: workspace.file("node-b"), arguments: ["--database", url, "--allow-fetch", "loopback"])
            let deadline = ContinuousClock.now + .seconds(300)
            while ContinuousClock.now < deadline {
                let answer = try await Curl.fetch(tools[.curl], second.baseURL + transfer, timeout: .seconds(30))
                let json = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                state = json?["state"] as? String ?? "HTTP \(answer.status)"
                if state == "complete" || state == "failed" { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(state == "complete", "the acknowledged transfer ended as \(state) on the second node")
            let file = workspace.file("node-b/downloads/fault.bin")
            let bytes = FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
            #expect(bytes.count == size && bytes == TestOrigin.content(name: "fault.bin", range: 0..<size))
            // The second node fetched it itself: the first never finished it.
            #expect(origin.requests(path: "/files/fault.bin") >= 2)
            #expect(!FileManager.default.fileExists(atPath: workspace.file("node-a/downloads/fault.bin")))
            await second.stop()
            try await origin.shutdown()
        }
    }
}
