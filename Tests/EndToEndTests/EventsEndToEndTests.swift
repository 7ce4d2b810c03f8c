import Foundation
import Testing
import TunerTesting

/// The live events' WebSocket through the real `tuner serve`, with Python's `websockets` as the
/// client: events of a download arrive in sequence, a client that reconnects with its last
/// sequence gets what it missed, one from another run gets a resync, and a foreign page's
/// upgrade is refused.
@Suite(.serialized) struct EventsEndToEndTests {
    static let client = #"""
        import asyncio, json, sys, time, urllib.request
        import websockets

        base, files = sys.argv[1], sys.argv[2]
        events = base.replace("http://", "ws://") + "/api/v1/events?topics=transfers"
        report = {}

        def add(name):
            body = json.dumps({"url": f"{files}/files/{name}?size=1500000&drip=65536,40"}).encode()
            request = urllib.request.Request(base + "/api/v1/transfers", data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
            return json.load(urllib.request.urlopen(request))["transfers"][0]["id"]

        async def follow(ws, task):
            """Reads until transfer `task` is complete; returns the sequence numbers and types seen."""
            seen = []
            while True:
                event = json.loads(await asyncio.wait_for(ws.recv(), 20))
                seen.append((event["seq"], event["type"], event["data"].get("id") if event["data"] else None))
                if event["type"] == "transfer.changed" and event["data"]["id"] == task \
                        and event["data"]["state"] == "complete":
                    return seen

        async def main():
            async with websockets.connect(events) as ws:
                hello = json.loads(await ws.recv())["hello"]
                epoch = hello["epoch"]
                first = add("one.bin")
                seen = await follow(ws, first)
            report["first"] = seen
            last = seen[-1][0]
            # While nobody listens, a second download runs to the end.
            second = add("two.bin")
            for _ in range(200):
                state = json.load(urllib.request.urlopen(f"{base}/api/v1/transfers/{second}"))
                if state.get("task", state).get("state") == "complete": break
                time.sleep(0.05)
            async with websockets.connect(f"{events}&after={last}&epoch={epoch}") as ws:
                json.loads(await ws.recv())
                report["missed"] = await follow(ws, second)
            async with websockets.connect(f"{events}&after={last}&epoch=another-run") as ws:
                json.loads(await ws.recv())
                report["restarted"] = json.loads(await ws.recv())["type"]
            try:
                async with websockets.connect(events, origin="http://evil.example") as ws:
                    report["foreign"] = "upgraded"
            except websockets.InvalidStatus as error:
                report["foreign"] = error.response.status_code
            try:
                async with websockets.connect(events.replace("transfers", "nonsense")) as ws:
                    report["badTopic"] = "upgraded"
            except websockets.InvalidStatus as error:
                report["badTopic"] = error.response.status_code
            print(json.dumps(report))

        asyncio.run(main())
        """#

    @Test("a WebSocket client follows downloads, resumes after a reconnect, and a foreign page is refused")
    func followResumeAndRefuse() async throws {
        guard let tools = Tools.require(.curl, .python3Websockets) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let files = try await TestOrigin.start()
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--allow-fetch", "loopback"])
        let script = workspace.file("events.py")
        try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try await Subprocess.run(
            tools[.python3Websockets], [script, server.baseURL, files.baseURL], timeout: .seconds(90))
        _ = await server.stop()
        try await files.shutdown()
        #expect(run.succeeded, "\(run.transcript)")
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]

        let first = report["first"] as? [[Any]] ?? []
        let firstSequences = first.compactMap { $0.first as? Int }
        #expect(firstSequences == firstSequences.sorted() && Set(firstSequences).count == firstSequences.count)
        #expect(first.contains { ($0[1] as? String) == "transfer.progress" }, "progress arrives: \(first)")
        let missed = report["missed"] as? [[Any]] ?? []
        let missedSequences = missed.compactMap { $0.first as? Int }
        // What was missed comes in order, after the last event seen, one per key (the newest
        // progress, the final state), ending with the second download complete.
        #expect(!missed.isEmpty && (missedSequences.first ?? 0) > (firstSequences.last ?? 0), "\(missed)")
        #expect(missedSequences == missedSequences.sorted(), "the missed events come in order")
        #expect(missed.allSatisfy { ($0[2] as? Int) == 2 }, "only the second download's: \(missed)")
        #expect(missed.filter { ($0[1] as? String) == "transfer.progress" }.count <= 1, "coalesced: \(missed)")
        #expect(report["restarted"] as? String == "resync")
        // Refused before any WebSocket exists (the upgrade library answers a refused upgrade 400).
        #expect([400, 403].contains(report["foreign"] as? Int ?? 101), "\(String(describing: report["foreign"]))")
        #expect(report["badTopic"] as? Int == 400)
    }

    /// A client that upgrades and then never reads, beside one that does, while 300 downloads
    /// run: the reader hears every download finish, and the server's memory stays bounded.
    static let stalledClient = #"""
        import asyncio, json, socket, sys, urllib.request
        import websockets

        base, files, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
        # The stalled client: a tiny receive window, the upgrade, then silence.
        stalled = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        stalled.connect(("127.0.0.1", port))
        stalled.sendall(b"GET /api/v1/events?topics=transfers HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        head = stalled.recv(1024)
        assert head.startswith(b"HTTP/1.1 101"), head

        async def main():
            async with websockets.connect(base.replace("http://", "ws://") + "/api/v1/events?topics=transfers",
                                          max_queue=None) as ws:
                json.loads(await ws.recv())
                body = json.dumps({"transfers": [{"url": f"{files}/files/f{i}.bin?size=20000"} for i in range(300)]})
                request = urllib.request.Request(base + "/api/v1/transfers", data=body.encode(), method="POST",
                                                 headers={"Content-Type": "application/json"})
                ids = {t["id"] for t in json.load(urllib.request.urlopen(request))["transfers"]}
                done, seen = set(), 0
                while done != ids:
                    event = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    seen += 1
                    if event["type"] == "transfer.changed" and event["data"]["state"] == "complete":
                        done.add(event["data"]["id"])
                print(json.dumps({"complete": len(done), "events": seen}))

        asyncio.run(main())
        stalled.close()
        """#

    @Test("a client that never reads holds nothing back: the others hear every event, memory stays bounded")
    func aStalledClientHoldsNothingBack() async throws {
        guard let tools = Tools.require(.python3Websockets) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let files = try await TestOrigin.start()
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--allow-fetch", "loopback"])
        let before = Self.residentKiB(pid: server.pid)
        let script = workspace.file("stalled.py")
        try Self.stalledClient.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try await Subprocess.run(
            tools[.python3Websockets], [script, server.baseURL, files.baseURL, String(server.port)],
            timeout: .seconds(180))
        let after = Self.residentKiB(pid: server.pid)
        _ = await server.stop()
        try await files.shutdown()
        #expect(run.succeeded, "\(run.transcript)")
        let report =
            try JSONSerialization.jsonObject(
                with: Data((run.output.split(separator: "\n").last.map(String.init) ?? "").utf8)) as? [String: Int]
        #expect(report?["complete"] == 300, "\(run.transcript)")
        // The stalled subscriber's queue is bounded (coalesced, then one resync): 300 downloads'
        // events cost it a few hundred kilobytes at most, not a copy of everything.
        #expect(before > 0 && after - before < 64 * 1024, "RSS \(before) KiB before, \(after) KiB after")
    }

    /// The resident memory of a process, from /proc (0 when unknown).
    static func residentKiB(pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
