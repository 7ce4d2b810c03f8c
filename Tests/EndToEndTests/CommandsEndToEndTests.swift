import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Commands with an `Idempotency-Key` through the real `tuner serve` and curl: a resend after a
/// lost answer, a dropped connection or a server restart gets the first answer and never acts
/// twice; a key reused for another request, or a malformed one, is refused.
@Suite(.serialized) struct CommandsEndToEndTests {
    struct Fixture {
        let tools: Tools
        let workspace: Workspace
        let files: TestOrigin

        func add(_ server: TunerProcess, name: String, key: String?) async throws -> CurlResponse {
            var options = [
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data", #"{"url": "\#(files.baseURL)/files/\#(name)?size=2000"}"#,
            ]
            if let key { options += ["-H", "Idempotency-Key: \(key)"] }
            return try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/transfers", options: options)
        }

        func transferCount(_ server: TunerProcess) async throws -> Int {
            let list = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/transfers")
            let object = try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: Any]
            return (object?["transfers"] as? [Any])?.count ?? -1
        }
    }

    @Test("a resent command is answered the first time's way and applied once, across a restart too")
    func resendsAreAppliedOnce() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let fixture = Fixture(tools: tools, workspace: workspace, files: try await TestOrigin.start())
        let data = workspace.file("data")
        var server = try await TunerProcess.serve(data: data, arguments: ["--allow-fetch", "loopback"])

        let first = try await fixture.add(server, name: "a.bin", key: "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect((200..<300).contains(first.status), "\(String(decoding: first.body, as: UTF8.self))")
        #expect(first.header("Idempotent-Replayed") == nil)
        let again = try await fixture.add(server, name: "a.bin", key: "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(again.status == first.status && again.body == first.body)
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(try await fixture.transferCount(server) == 1)
        // Without a key, the same request is a new command.
        #expect((200..<300).contains(try await fixture.add(server, name: "a.bin", key: nil).status))
        #expect(try await fixture.transferCount(server) == 2)

        // The same key for another request, and keys that are not keys.
        let reused = try await fixture.add(server, name: "b.bin", key: "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(reused.status == 422, "\(String(decoding: reused.body, as: UTF8.self))")
        #expect(try await fixture.add(server, name: "b.bin", key: "two words").status == 400)
        #expect(try await fixture.add(server, name: "b.bin", key: String(repeating: "k", count: 300)).status == 400)
        #expect(try await fixture.transferCount(server) == 2)

        // A client that sends the command and drops the connection without reading the answer,
        // then resends: one transfer, whether or not the first got through before the drop.
        let body = #"{"url": "\#(fixture.files.baseURL)/files/dropped.bin?size=2000"}"#
        let request =
            "POST /api/v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Idempotency-Key: dropped-1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let socket = try RawHTTP.connect(port: server.port)
        _ = Array(request.utf8).withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        close(socket)
        var resent = try await fixture.add(server, name: "dropped.bin", key: "dropped-1")
        for _ in 0..<100 where resent.status == 409 {
            // The first attempt is still running: the answer says to come back in a second.
            #expect(resent.header("Retry-After") == "1")
            try await Task.sleep(for: .milliseconds(50))
            resent = try await fixture.add(server, name: "dropped.bin", key: "dropped-1")
        }
        #expect((200..<300).contains(resent.status), "\(String(decoding: resent.body, as: UTF8.self))")
        #expect(try await fixture.transferCount(server) == 3)

        // Ten resends at once: one applies, the others replay it or are told it is running.
        let running = server
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { try await fixture.add(running, name: "c.bin", key: "burst").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { (200..<300).contains($0) || $0 == 409 }, "\(statuses)")
        #expect(try await fixture.transferCount(server) == 4)

        // After a restart the keys are still known.
        _ = await server.stop()
        server = try await TunerProcess.serve(data: data, arguments: ["--allow-fetch", "loopback"])
        let afterRestart = try await fixture.add(server, name: "a.bin", key: "3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        #expect(afterRestart.body == first.body && afterRestart.header("Idempotent-Replayed") == "true")
        #expect(try await fixture.add(server, name: "c.bin", key: "burst").header("Idempotent-Replayed") == "true")
        #expect(try await fixture.transferCount(server) == 4)
        _ = await server.stop()
        try await fixture.files.shutdown()
    }
}
