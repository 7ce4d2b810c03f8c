import AsyncHTTPClient
import Foundation
import Testing
import TunerStorage
import TunerTesting

/// `--database` with the real binary: a SQLite file elsewhere holds the state, a PostgreSQL server
/// that does not answer stops the start with one line naming its address, and a password given in
/// the URL or a file appears in no output and no answer.
@Suite struct DatabaseChoiceEndToEndTests {
    @Test func aSQLiteFileElsewhereHoldsTheStateOfEveryCommand() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let file = workspace.file("state.sqlite")
        let added = try await TunerProcess.run(
            ["keys", "add", "tv", "--scope", "read", "--data", data, "--database", "sqlite:" + file])
        #expect(added.succeeded, "\(added.transcript)")
        #expect(FileManager.default.fileExists(atPath: file), "the key went into the named file")
        #expect(!FileManager.default.fileExists(atPath: data + "/tuner.sqlite"), "not into the data folder")

        let server = try await TunerProcess.serve(data: data, arguments: ["--database", "sqlite:" + file])
        let keys = try await Self.get(server.baseURL + "/api/v1/keys")
        #expect(keys.status == 200 && keys.body.contains(#""name":"tv""#), "\(keys.body)")
        #expect(server.log.contains("SQLite at " + file), "the start says which database: \(server.log)")
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: data + "/tuner.sqlite"))
    }

    @Test func anUnreachablePostgreSQLStopsTheStartNamingItsAddressOnly() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let refusing = try RefusingPort()
        let password = "pw-never-shown-5d1e"
        let url = "postgres://tuner:\(password)@127.0.0.1:\(refusing.port)/tuner"
        let address = "tuner on PostgreSQL at 127.0.0.1:\(refusing.port) as role tuner"
        let started = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", workspace.file("data"), "--database", url], timeout: .seconds(60))
        #expect(!started.timedOut && started.status == 1, "exit code 1: \(started.transcript)")
        let lines = started.errorOutput.split(separator: "\n").filter { $0.contains("127.0.0.1:\(refusing.port)") }
        #expect(lines.count == 1, "one line names the address: \(started.transcript)")
        #expect(lines.first?.contains(address) == true, "\(started.transcript)")
        #expect(lines.first?.contains("cannot open its database") == true, "\(started.transcript)")
        #expect(!started.transcript.contains(password), "\(started.transcript)")

        // The offline commands too, with the address from the environment and the password from a file.
        let passwordFile = workspace.file("password")
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let listed = try await TunerProcess.run(
            ["keys", "list", "--data", workspace.file("data")],
            environment: Subprocess.childEnvironment().merging([
                "TUNER_DATABASE": "postgres://tuner@127.0.0.1:\(refusing.port)/tuner",
                "TUNER_DATABASE_PASSWORD_FILE": passwordFile,
            ]) { $1 })
        #expect(!listed.timedOut && listed.status == 1, "\(listed.transcript)")
        #expect(listed.errorOutput.contains(address), "\(listed.transcript)")
        #expect(!listed.transcript.contains(password), "\(listed.transcript)")
    }

    @Test func thePasswordAppearsInNoOutputAndNoAnswer() async throws {
        guard TestPostgres.isAvailable else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        // The test server trusts loopback, so it takes any password; Tuner still sends it.
        let database = try await TestPostgres.createDatabase()
        let fromURL = "pw-in-the-url-8c41"
        let fromFile = "pw-in-a-file-2b97"
        let passwordFile = workspace.file("password")
        try (fromFile + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let host = "\(database.host):\(database.port)/\(database.database)"
        let starts: [(String, [String])] = [
            (fromURL, ["--database", "postgres://\(database.username):\(fromURL)@\(host)"]),
            (
                fromFile,
                ["--database", "postgres://\(database.username)@\(host)", "--database-password-file", passwordFile]
            ),
        ]
        for (index, (password, arguments)) in starts.enumerated() {
            let data = workspace.file("data-\(index)")
            let server = try await TunerProcess.serve(data: data, arguments: arguments + ["--log-level", "trace"])
            var answers = ""
            for path in [
                "/api/v1/health", "/api/v1/keys", "/api/v1/outputs", "/api/v1/sources", "/api/v1/transfers",
                "/api/v1/channels?limit=1", "/api/v1/nothing-here", "/openapi.json", "/metrics", "/settings",
            ] {
                answers += try await Self.get(server.baseURL + path).body
            }
            // The settings page (any signed-in key reads it) names the engine, not the address.
            #expect(answers.contains("PostgreSQL (named in the server log)"), "the settings page says which")
            #expect(!answers.contains("\(database.host):\(database.port)"), "no answer names the database")
            // Started with --port 0: the page shows the port the server got.
            let settings = try await Self.get(server.baseURL + "/settings").body
            #expect(settings.contains("127.0.0.1:\(server.port)<"), "\(settings)")
            let added = try await TunerProcess.run(
                ["keys", "add", "tv", "--scope", "read", "--data", data] + arguments)
            #expect(added.succeeded, "\(added.transcript)")
            await server.stop()
            let output = server.log + ((try? String(contentsOfFile: server.logPath + ".stdout", encoding: .utf8)) ?? "")
            #expect(
                output.contains("\(database.database) on PostgreSQL at"), "the log names it: \(output.suffix(2000))")
            #expect(!output.contains(password), "the server's output holds the password")
            #expect(!answers.contains(password), "an answer holds the password")
            #expect(!added.transcript.contains(password), "\(added.transcript)")
        }
        await TestPostgres.drop(database)
    }

    @Test func aLostDatabaseAnswers503EverywhereAndTunerReconnectsWhenItIsBack() async throws {
        guard TestPostgres.isAvailable else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        // A cluster of its own, stopped as a crash would stop it: never the shared test server.
        let cluster = workspace.file("cluster")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/test-postgres").path
        let started = try await Subprocess.run(script, ["start", cluster], timeout: .seconds(120))
        try #require(started.succeeded, "\(started.transcript)")
        do {
            try await Self.loseAndRegain(
                url: started.output.trimmingCharacters(in: .whitespacesAndNewlines), cluster: cluster, script: script,
                workspace: workspace)
        } catch {
            _ = try? await Subprocess.run(script, ["stop", cluster], timeout: .seconds(60))
            throw error
        }
        _ = try? await Subprocess.run(script, ["stop", cluster], timeout: .seconds(60))
    }

    /// The body of the test above, on a started cluster.
    static func loseAndRegain(url: String, cluster: String, script: String, workspace: Workspace) async throws {
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        let server = try await TunerProcess.serve(data: workspace.file("data"), arguments: ["--database", url])
        let paths = [
            "/api/v1/sources", "/api/v1/outputs", "/lineup.json", "/output/default.m3u",
            "/player_api.php?username=viewer&password=secret1", "/get.php?username=viewer&password=secret1",
        ]
        for path in paths where !path.contains("php") {
            #expect(try await Self.get(server.baseURL + path).status == 200, "\(path) before the fault")
        }

        let killed = try await Subprocess.run(script, ["kill", cluster], timeout: .seconds(60))
        try #require(killed.succeeded, "\(killed.transcript)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for path in paths {
                group.addTask {
                    let answer = try await Self.get(server.baseURL + path)
                    #expect(answer.status == 503, "\(path): \(answer.status) \(answer.body)")
                    #expect(answer.retryAfter == "5", "\(path)")
                    #expect(!answer.body.contains(String(port)) && !answer.body.contains("postgres"), "\(answer.body)")
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.get(server.baseURL + "/api/v1/health").status == 200, "health needs no database")
        #expect(server.log.contains("The state database cannot be reached"), "the owner's log says why")

        let restarted = try await Subprocess.run(script, ["restart", cluster], timeout: .seconds(120))
        try #require(restarted.succeeded, "\(restarted.transcript)")
        // The pool reconnects by itself: no restart of Tuner.
        var status = 0
        for _ in 0..<120 {
            status = try await Self.get(server.baseURL + "/api/v1/sources").status
            if status == 200 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(status == 200, "the API answers again once PostgreSQL is back")
        #expect(try await Self.get(server.baseURL + "/lineup.json").status == 200)
        await server.stop()
    }

    static func get(_ url: String) async throws -> (status: Int, body: String, retryAfter: String?) {
        let response = try await HTTP.client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: body), response.headers.first(name: "Retry-After"))
    }
}
