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
}
