import Foundation
import Testing
import TunerAPI
import TunerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Three `tuner serve` nodes on one PostgreSQL, each on a host of its own (network namespaces on
/// one bridge), with the provider, the database, HAProxy (with the shipped `deploy/haproxy.cfg`)
/// and the players on hosts of their own: one provider connection per channel for the whole
/// cluster, a connection limit kept across nodes, URLs signed by one node playing on another, a
/// file fetched once through the balancer, and viewers that keep playing when the node reading
/// their channel is killed.
@Suite(.serialized) struct ClusterEndToEndTests {
    /// The hosts and the last byte of their addresses.
    static let hosts: [(name: String, number: Int)] = [
        ("n1", 1), ("n2", 2), ("n3", 3), ("db", 10), ("provider", 20), ("lb", 30), ("client", 40),
    ]
    static let nodes = ["n1", "n2", "n3"]

    /// Everything a test started, stopped by ``stop()`` whatever happened.
    final class Cluster: @unchecked Sendable {
        let lan: ClusterLAN
        let workspace: Workspace
        var servers: [String: TunerProcess] = [:]
        var children: [ChildProcess] = []
        var postgresDirectory: String?
        /// Each node's `tuner serve` arguments, to start it again.
        var arguments: [String: [String]] = [:]

        init(lan: ClusterLAN, workspace: Workspace) {
            self.lan = lan
            self.workspace = workspace
        }

        func address(_ host: String) -> String {
            "\(lan.subnet).\(ClusterEndToEndTests.hosts.first { $0.name == host }!.number)"
        }

        func node(_ name: String) -> String { "http://\(address(name)):8080" }

        func stop() async {
            for server in servers.values { await server.stop(signal: SIGKILL, timeout: .seconds(5)) }
            for child in children {
                child.send(SIGKILL)
                _ = await child.wait()
            }
            if let postgresDirectory {
                _ = try? await Subprocess.run(
                    ClusterEndToEndTests.script("test-postgres"), ["stop", postgresDirectory])
            }
            await lan.remove()
            workspace.remove()
        }
    }

    /// `scripts/<name>` of this repository.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/\(name)").path
    }

    /// `deploy/haproxy.cfg` of this repository.
    static var shippedConfigurationPath: String {
        URL(fileURLWithPath: script("x")).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/haproxy.cfg").path
    }

    /// The shipped HAProxy configuration with its `server` lines naming `nodes`.
    static func haproxyConfiguration(nodes: [(name: String, address: String)]) throws -> String {
        let shipped = try String(contentsOfFile: shippedConfigurationPath, encoding: .utf8)
        var lines: [String] = []
        var skipping = false
        for line in shipped.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces) == "# NODES BEGIN" {
                skipping = true
                lines.append(line)
                lines += nodes.map { "    server \($0.name) \($0.address):8080 check" }
            } else if line.trimmingCharacters(in: .whitespaces) == "# NODES END" {
                skipping = false
                lines.append(line)
            } else if !skipping {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    @Test("the shipped deploy/haproxy.cfg is valid, and hashes /stream/ consistently by path")
    func shippedConfigurationIsValid() async throws {
        guard let tools = Tools.require(.haproxy) else { return }
        let path = Self.shippedConfigurationPath
        let checked = try await Subprocess.run(tools[.haproxy], ["-c", "-f", path])
        #expect(checked.output.contains("valid") || checked.succeeded)
        #expect(checked.succeeded, "\(checked.transcript)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // The test's own configuration comes from it: only the server lines differ.
        #expect(try Self.haproxyConfiguration(nodes: [("a", "10.9.9.1")]).contains("server a 10.9.9.1:8080 check"))
        #expect(text.contains("balance uri") && text.contains("hash-type consistent"))
        #expect(text.contains("option httpchk GET /api/v1/health"))
    }

    @Test("three nodes behind HAProxy: one connection per channel, limits and URLs across nodes, a node killed")
    func threeNodes() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe, .haproxy), NetworkNamespaces.available() else {
            return
        }
        let lan = try await ClusterLAN.make(hosts: Self.hosts)
        let cluster = Cluster(lan: lan, workspace: try Workspace())
        do {
            try await Self.run(cluster, tools: tools)
        } catch {
            for (name, server) in cluster.servers {
                print("--- \(name)'s log (last 4000 characters)\n\(server.log.suffix(4000))")
            }
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    static func run(_ cluster: Cluster, tools: Tools) async throws {
        let curl = tools[.curl]
        let workspace = cluster.workspace
        let client = try cluster.lan.on("client")

        // The database, on its own host.
        let postgresDirectory = workspace.file("postgres")
        cluster.postgresDirectory = postgresDirectory
        let started = try await Subprocess.run(
            script("test-postgres"),
            ["start", postgresDirectory, cluster.lan.namespaces["db"]!, cluster.address("db")], timeout: .seconds(120))
        #expect(started.succeeded, "\(started.transcript)")
        let database = started.output.trimmingCharacters(in: .whitespacesAndNewlines)

        // The provider: two endless channels, a playlist and two files.
        let provider = try cluster.lan.on("provider")
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let live = "http://\(cluster.address("provider")):8001"
        let files = "http://\(cluster.address("provider")):8000"
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.uk",One
            \(live)/ch0.ts
            #EXTINF:-1 tvg-id="two.uk",Two
            \(live)/ch1.ts

            """.utf8
        ).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        let signedFile = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sharedFile = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 5) }
        try Data(signedFile).write(to: URL(fileURLWithPath: served + "/signed.bin"))
        try Data(sharedFile).write(to: URL(fileURLWithPath: served + "/shared.bin"))
        let origin = URL(fileURLWithPath: TunerProcess.binary).deletingLastPathComponent()
            .appendingPathComponent("tuner-live-origin").path
        cluster.children.append(
            try ChildProcess(
                provider[0],
                Array(provider.dropFirst()) + [
                    origin, workspace.file("origin"), "2", "\(cluster.address("provider")):8001",
                ],
                standardError: .file(workspace.file("origin.log"))))
        let python = try #require(ExternalCommand.path(of: "python3"), "python3 is needed")
        let filesLog = workspace.file("files.log")
        cluster.children.append(
            try ChildProcess(
                provider[0],
                Array(provider.dropFirst()) + [
                    python, "-m", "http.server", "8000", "--bind", cluster.address("provider"), "--directory", served,
                ], standardError: .file(filesLog)))
        try await waitFor("the provider", client: client, curl: curl, url: live + "/count/ch0")
        try await waitFor("the provider's files", client: client, curl: curl, url: files + "/list.m3u")

        // Three nodes; the first makes the cluster's secrets, the others take them.
        for name in nodes {
            cluster.arguments[name] = [
                "--host", "0.0.0.0", "--port", "8080", "--database", database, "--node-id", name,
                "--advertise", cluster.node(name), "--catalog-check-interval", "0",
                // One downloads folder for the three (as a network share would be), and claims
                // that a dead node loses within seconds.
                "--downloads-dir", workspace.file("downloads"), "--transfers-claim-lifetime", "4",
                // HAProxy's word for the player's address counts.
                "--trusted-proxy", cluster.address("lb"),
            ]
            cluster.servers[name] = try await TunerProcess.serve(
                data: workspace.file(name), arguments: cluster.arguments[name] ?? [], launcher: try cluster.lan.on(name)
            )
        }
        let token = try #require(FileManager.default.contents(atPath: workspace.file("n1/token")))
        for name in nodes.dropFirst() {
            #expect(FileManager.default.contents(atPath: workspace.file("\(name)/token")) == token, "one token")
        }
        let bearer = ["-H", "Authorization: Bearer \(Data(token).base64URLEncodedString())"]

        // The cluster lists its three nodes on each of them.
        for name in nodes {
            let answer = try await Curl.fetch(
                curl, cluster.node(name) + "/api/v1/cluster", options: bearer, launcher: client)
            let decoded = try decoder.decode(ClusterAnswer.self, from: Data(answer.body))
            #expect(decoded.clustered && decoded.thisNode == name)
            #expect(decoded.nodes.map(\.id) == nodes)
        }
        // The relay path answers nobody without the cluster's secret, not even the owner.
        let relay = try await Curl.fetch(
            curl, cluster.node("n2") + "/internal/live/1", options: bearer, launcher: client)
        #expect(relay.status == 404)

        // The owner adds the playlist on n1; every node sees it.
        let added = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/sources",
            options: bearer + [
                "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"location":"\#(files)/list.m3u"}"#,
            ], launcher: client)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let refreshed = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/sources/1/refresh", options: bearer + ["-X", "POST"], launcher: client)
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
        // Players play through the default output's lineup (its URLs carry the profile's key).
        let outputs = try await Curl.fetch(
            curl, cluster.node("n3") + "/api/v1/outputs", options: bearer, launcher: client)
        let profiles = try #require(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(outputs.body))["profiles"]?.array)
        let key = try #require(
            profiles.first { $0.object?["id"]?.string == "default" }?.object?["accessKey"]?.string)
        let lineup = try await Curl.fetch(
            curl, cluster.node("n3") + "/output/default/key/\(key)/lineup.json", launcher: client)
        let entries = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(lineup.body))
        func path(_ name: String) throws -> String {
            let text = entries.first { $0["GuideName"]?.string == name }?["URL"]?.string
            let url = try #require(text.flatMap(URL.init(string:)), "\(name) in the lineup")
            return url.path + "?" + (url.query ?? "")
        }
        let (one, two) = (try path("One"), try path("Two"))

        try await thirtyViewers(cluster, curl: curl, bearer: bearer, channel: one, live: live)
        try await limitAcrossNodes(cluster, curl: curl, bearer: bearer, channels: (one, two))
        try await signedURLs(cluster, curl: curl, bearer: bearer, files: files, signed: signedFile, shared: sharedFile)
        try await eventsAcrossNodes(cluster, token: Data(token).base64URLEncodedString(), files: files)
        try await addressesBehindTheBalancer(cluster, curl: curl, bearer: bearer, channel: one)
        try await downloadTakenOver(cluster, curl: curl, bearer: bearer)
        try await ownerKilled(cluster, tools: tools, bearer: bearer, channel: one, live: live)
    }

    /// Through HAProxy (a trusted proxy) a viewer is listed with the player's address; straight to
    /// a node, a forged `X-Forwarded-For` changes nothing.
    static func addressesBehindTheBalancer(
        _ cluster: Cluster, curl: String, bearer: [String], channel: String
    ) async throws {
        let client = try cluster.lan.on("client")
        let front = "http://\(cluster.address("lb")):8080"
        let scratch = NSTemporaryDirectory() + "cluster-addresses-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Players that stay on until the test has seen them listed: a loaded machine may take a
        // while to open a relay, and no deadline decides whether they were viewers.
        let balanced = try CurlStream(curl, front + channel, directory: scratch, launcher: client)
        let forged = try CurlStream(
            curl, cluster.node("n3") + channel, options: ["-H", "X-Forwarded-For: 1.2.3.4"], directory: scratch,
            launcher: client)
        try await balanced.wait(for: "the channel through HAProxy") { !$0.isEmpty }
        try await forged.wait(for: "the channel straight from n3") { !$0.isEmpty }
        var addresses: [String] = []
        for _ in 0..<60 {
            addresses = []
            for name in nodes {
                let answer = try await Curl.fetch(
                    curl, cluster.node(name) + "/api/v1/streams", options: bearer, launcher: client)
                let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
                for stream in decoded["streams"]?.array ?? [] {
                    for viewer in stream.object?["viewers"]?.array ?? [] {
                        if let address = viewer.object?["address"]?.string { addresses.append(address) }
                    }
                }
            }
            if addresses.filter({ $0 == cluster.address("client") }).count >= 2 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let (viaBalancer, direct) = (await balanced.stop(), await forged.stop())
        // What each player received, and what HAProxy logged (a node it marked down, say): a
        // failure here needs both to be understood.
        let received = [("through HAProxy", viaBalancer), ("straight from n3", direct)].map { name, answer in
            let body =
                answer.status == 200
                ? "\(answer.body.count) bytes" : String(decoding: answer.body.prefix(300), as: UTF8.self)
            return "\(name): \(answer.status) \(answer.headers) \(body)"
        }
        let said =
            "HAProxy said:\n\(tail(cluster.workspace.file("haproxy.err")))\n"
            + tail(cluster.workspace.file("haproxy.log"))
        #expect(
            addresses.filter { $0 == cluster.address("client") }.count >= 2,
            "\(addresses)\n\(received.joined(separator: "\n"))\n\(said)")
        #expect(!addresses.contains(cluster.address("lb")) && !addresses.contains("1.2.3.4"), "\(addresses)")
        #expect(viaBalancer.status == 200 && direct.status == 200, "\(received.joined(separator: "\n"))\n\(said)")
    }

    /// A slow origin with ranges: 64 KiB every 100 ms, logging each request's `Range`.
    static let slowOrigin = #"""
        import http.server, sys, time
        host, port, path, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
        data = open(path, "rb").read()

        class Handler(http.server.BaseHTTPRequestHandler):
            def head(self):
                wanted = self.headers.get("Range")
                start = int(wanted[6:].split("-")[0]) if wanted and wanted.startswith("bytes=") else 0
                with open(log, "a") as out: out.write(f"{self.command} {wanted or '-'}\n")
                self.send_response(206 if start else 200)
                if start: self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.send_header("Content-Length", str(len(data) - start))
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("ETag", '"slow-1"')
                self.end_headers()
                return start
            def do_HEAD(self): self.head()
            def do_GET(self):
                start = self.head()
                for offset in range(start, len(data), 65536):
                    self.wfile.write(data[offset:offset + 65536]); self.wfile.flush(); time.sleep(0.1)
            def log_message(self, *args): pass

        http.server.ThreadingHTTPServer((host, port), Handler).serve_forever()
        """#

    /// A download n2 runs, n2 killed -9 mid-file: another node takes the task over once n2's
    /// claim expires and resumes it from the committed offset in the shared folder, exact bytes.
    static func downloadTakenOver(_ cluster: Cluster, curl: String, bearer: [String]) async throws {
        let client = try cluster.lan.on("client")
        let provider = try cluster.lan.on("provider")
        let content = (0..<6_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ ($0 >> 16)) }
        let file = cluster.workspace.file("slow.bin")
        try Data(content).write(to: URL(fileURLWithPath: file))
        let script = cluster.workspace.file("slow.py")
        try Data(slowOrigin.utf8).write(to: URL(fileURLWithPath: script))
        let requests = cluster.workspace.file("slow.log")
        let python = try #require(ExternalCommand.path(of: "python3"), "python3 is needed")
        cluster.children.append(
            try ChildProcess(
                provider[0],
                Array(provider.dropFirst()) + [python, script, cluster.address("provider"), "8002", file, requests]))
        let origin = "http://\(cluster.address("provider")):8002"
        try await Task.sleep(for: .seconds(1))
        let added = try await Curl.fetch(
            curl, cluster.node("n2") + "/api/v1/transfers",
            options: bearer + [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"transfers":[{"url":"\#(origin)/slow.bin","name":"slow.bin"}]}"#,
            ], launcher: client)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let listed = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        let id = Int(try #require(listed["transfers"]?.array?.first?.object?["id"]?.number))
        func task(on node: String) async throws -> [String: JSONValue] {
            let answer = try await Curl.fetch(
                curl, cluster.node(node) + "/api/v1/transfers/\(id)", options: bearer, launcher: client)
            return (try? JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))) ?? [:]
        }
        // n2 has committed a good part of it, and is still downloading.
        var committed = 0.0
        for _ in 0..<200 where committed < 1_000_000 {
            try await Task.sleep(for: .milliseconds(100))
            committed = try await task(on: "n2")["committedBytes"]?.number ?? 0
        }
        #expect(committed >= 1_000_000 && committed < Double(content.count), "committed before the kill: \(committed)")
        await cluster.servers["n2"]?.stop(signal: SIGKILL)
        var state = ""
        for _ in 0..<300 where state != "complete" && state != "failed" {
            try await Task.sleep(for: .milliseconds(200))
            state = try await task(on: "n3")["state"]?.string ?? ""
        }
        #expect(state == "complete", "the download ended as \(state)")
        let stored = FileManager.default.contents(atPath: cluster.workspace.file("downloads/slow.bin"))
        #expect(stored.map { [UInt8]($0) } == content, "the shared folder holds the exact bytes")
        // The second fetch went on from where n2 had committed, not from the start.
        let lines = ((try? String(contentsOfFile: requests, encoding: .utf8)) ?? "").split(separator: "\n")
        let gets = lines.filter { $0.hasPrefix("GET") }
        #expect(gets.count == 2, "\(lines)")
        let resumedAt = gets.last.flatMap { Int($0.split(separator: "=").last?.split(separator: "-").first ?? "") }
        #expect(
            (resumedAt ?? 0) > 0 && Double(resumedAt ?? 0) >= committed, "resumed at \(String(describing: resumedAt))")
        // n2 is back for the next part: started again, it rejoins under its name.
        cluster.servers["n2"] = try await TunerProcess.serve(
            data: cluster.workspace.file("n2"), arguments: cluster.arguments["n2"] ?? [],
            launcher: try cluster.lan.on("n2"))
    }

    /// A web app's events client on n1 follows a download n2 runs; reconnected to n3 with the last
    /// number it saw, it gets what it missed (another download of n2), no resync.
    static let eventsClient = #"""
        import asyncio, json, sys, time, urllib.request
        import websockets

        one, two, three, token, files = sys.argv[1:6]
        auth = {"Authorization": f"Bearer {token}"}
        path = "/api/v1/events?topics=transfers"
        report = {}

        def call(base, path, body=None):
            request = urllib.request.Request(base + path, data=body and json.dumps(body).encode(),
                                             method="POST" if body else "GET",
                                             headers=dict(auth, **({"Content-Type": "application/json"} if body else {})))
            return json.load(urllib.request.urlopen(request))

        def add(name):
            return call(two, "/api/v1/transfers", {"url": f"{files}/{name}"})["transfers"][0]["id"]

        async def follow(ws, task):
            seen = []
            while True:
                event = json.loads(await asyncio.wait_for(ws.recv(), 30))
                seen.append((event["seq"], event["type"], (event["data"] or {}).get("id"), event["epoch"]))
                if event["type"] == "transfer.changed" and event["data"]["id"] == task \
                        and event["data"]["state"] == "complete":
                    return seen

        async def main():
            async with websockets.connect(one.replace("http://", "ws://") + path, additional_headers=auth) as ws:
                hello = json.loads(await ws.recv())["hello"]
                first = add("download-one.bin")
                report["first"] = await follow(ws, first)
            last = report["first"][-1][0]
            second = add("download-two.bin")
            for _ in range(300):
                if call(two, f"/api/v1/transfers/{second}").get("state") == "complete": break
                time.sleep(0.05)
            url = three.replace("http://", "ws://") + path + f"&after={last}&epoch={hello['epoch']}"
            async with websockets.connect(url, additional_headers=auth) as ws:
                report["helloThree"] = json.loads(await ws.recv())["hello"]
                report["missed"] = await follow(ws, second)
            report["epoch"] = hello["epoch"]
            report["ids"] = [first, second]
            print(json.dumps(report))

        asyncio.run(main())
        """#

    static func eventsAcrossNodes(_ cluster: Cluster, token: String, files: String) async throws {
        guard let tools = Tools.require(.python3Websockets) else { return }
        let served = cluster.workspace.file("served")
        for name in ["download-one.bin", "download-two.bin"] {
            try Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(
                to: URL(fileURLWithPath: served + "/" + name))
        }
        let script = cluster.workspace.file("events.py")
        try Data(eventsClient.utf8).write(to: URL(fileURLWithPath: script))
        let client = try cluster.lan.on("client")
        let ran = try await Subprocess.run(
            client[0],
            Array(client.dropFirst()) + [
                tools[.python3Websockets], script, cluster.node("n1"), cluster.node("n2"), cluster.node("n3"), token,
                files,
            ], timeout: .seconds(120))
        #expect(ran.succeeded, "\(ran.transcript)")
        let report = try JSONDecoder().decode([String: JSONValue].self, from: Data(ran.output.utf8))
        let ids = try #require(report["ids"]?.array?.compactMap { $0.number })
        let epoch = try #require(report["epoch"]?.string)
        for (name, id) in [("first", ids[0]), ("missed", ids[1])] {
            let seen = try #require(report[name]?.array?.compactMap { $0.array }, "\(name)")
            let numbers = seen.compactMap { $0.first?.number }
            // In order, without a resync, in the cluster's one epoch, about the download n2 ran.
            #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "\(name): \(numbers)")
            #expect(!seen.contains { $0[1].string == "resync" }, "\(name): \(seen)")
            #expect(seen.allSatisfy { $0[3].string == epoch })
            #expect(seen.contains { $0[1].string == "transfer.changed" && $0[2].number == id }, "\(name): \(seen)")
        }
        // n3 numbers as n1 does: the resumed stream goes on after the last number seen on n1.
        let first = try #require(report["first"]?.array?.last?.array?.first?.number)
        let resumed = try #require(report["missed"]?.array?.first?.array?.first?.number)
        #expect(resumed > first)
        #expect(report["helloThree"]?.object?["epoch"]?.string == epoch)
        print(
            "events: \(report["first"]?.array?.count ?? 0) on n1, \(report["missed"]?.array?.count ?? 0) resumed on n3")
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// 30 viewers of one channel, ten on each node: one provider connection.
    static func thirtyViewers(_ cluster: Cluster, curl: String, bearer: [String], channel: String, live: String)
        async throws
    {
        let client = try cluster.lan.on("client")
        let answers = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for index in 0..<30 {
                let node = cluster.node(nodes[index % 3])
                group.addTask {
                    // The first viewers open the session; the rest join it from every node.
                    try await Task.sleep(for: .milliseconds(index < 3 ? index * 300 : 1500 + index * 20))
                    return try await Curl.fetch(curl, node + "\(channel)", timeout: .seconds(8), launcher: client)
                }
            }
            var answers: [CurlResponse] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.map(\.status))")
        #expect(answers.allSatisfy { $0.body.count > 100_000 }, "\(answers.map(\.body.count))")
        let counted = try await Curl.fetch(curl, live + "/count/ch0", launcher: client)
        #expect(String(decoding: counted.body, as: UTF8.self).hasPrefix("1 "), "connections ever, open now")
    }

    /// A limit of one connection on the account holds over the nodes: while one node plays a
    /// channel, another channel is refused on every node.
    static func limitAcrossNodes(
        _ cluster: Cluster, curl: String, bearer: [String], channels: (one: String, two: String)
    ) async throws {
        let client = try cluster.lan.on("client")
        let patched = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/sources/1",
            options: bearer + [
                "-X", "PATCH", "-H", "Content-Type: application/json", "--data", #"{"maxConnections":1}"#,
            ], launcher: client)
        #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
        // The last session of the thirty may still linger (5 s) on the node that read it.
        try await Task.sleep(for: .seconds(6))
        async let holder = Curl.fetch(
            curl, cluster.node("n2") + "\(channels.one)", timeout: .seconds(10), launcher: client)
        try await Task.sleep(for: .seconds(3))
        for name in nodes {
            let refused = try await Curl.fetch(
                curl, cluster.node(name) + "\(channels.two)", timeout: .seconds(5), launcher: client)
            #expect(refused.status == 503, "\(name): \(refused.status)")
            #expect(refused.header("Retry-After") != nil)
        }
        // The same channel joins on any node: it is the one connection.
        let joined = try await Curl.fetch(
            curl, cluster.node("n3") + "\(channels.one)", timeout: .seconds(3), launcher: client)
        #expect(joined.status == 200 && joined.body.count > 10_000)
        let held = try await holder
        #expect(held.status == 200)
        let restored = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/sources/1",
            options: bearer + [
                "-X", "PATCH", "-H", "Content-Type: application/json", "--data", #"{"maxConnections":0}"#,
            ], launcher: client)
        #expect(restored.status == 200, "\(String(decoding: restored.body, as: UTF8.self))")

        // An output profile with one tuner: a channel tuned on n1 takes it on n3 too.
        let tuners = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/outputs/default",
            options: bearer + ["-X", "PATCH", "-H", "Content-Type: application/json", "--data", #"{"streamLimit":1}"#],
            launcher: client)
        #expect(tuners.status == 200, "\(String(decoding: tuners.body, as: UTF8.self))")
        try await Task.sleep(for: .seconds(6))
        async let tuned = Curl.fetch(
            curl, cluster.node("n1") + "\(channels.one)", timeout: .seconds(8), launcher: client)
        // Two heartbeats: n3 has read n1's.
        try await Task.sleep(for: .seconds(3))
        let untuned = try await Curl.fetch(
            curl, cluster.node("n3") + "\(channels.two)", timeout: .seconds(4), launcher: client)
        #expect(untuned.status == 503 && String(decoding: untuned.body, as: UTF8.self).contains("tuners"))
        #expect(try await tuned.status == 200)
        let reset = try await Curl.fetch(
            curl, cluster.node("n1") + "/api/v1/outputs/default",
            options: bearer + [
                "-X", "PATCH", "-H", "Content-Type: application/json", "--data", #"{"streamLimit":64}"#,
            ],
            launcher: client)
        #expect(reset.status == 200)
    }

    /// A URL signed on n1 plays through n3; a file 20 players ask HAProxy for is fetched from the
    /// provider once and kept by one node.
    static func signedURLs(
        _ cluster: Cluster, curl: String, bearer: [String], files: String, signed: [UInt8], shared: [UInt8]
    ) async throws {
        let client = try cluster.lan.on("client")
        func sign(_ url: String) async throws -> String {
            let answer = try await Curl.fetch(
                curl, cluster.node("n1") + "/api/v1/proxy-urls",
                options: bearer + [
                    "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"url":"\#(url)"}"#,
                ],
                launcher: client)
            #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
            return try #require(
                try JSONDecoder().decode([String: String].self, from: Data(answer.body))["proxyURL"])
        }
        let onOne = try await sign(files + "/signed.bin")
        let path = try #require(URL(string: onOne)).path
        let throughThree = try await Curl.fetch(curl, cluster.node("n3") + path, launcher: client)
        #expect(throughThree.status == 200 && throughThree.body == signed)

        // HAProxy on its own host, with the shipped configuration naming the three nodes.
        let configuration = try haproxyConfiguration(nodes: nodes.map { ($0, cluster.address($0)) })
        let configurationPath = cluster.workspace.file("haproxy.cfg")
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        let balancer = try cluster.lan.on("lb")
        let haproxy = try #require(ExternalTool.haproxy.path)
        cluster.children.append(
            try ChildProcess(
                balancer[0], Array(balancer.dropFirst()) + [haproxy, "-db", "-f", configurationPath],
                standardOutput: .file(cluster.workspace.file("haproxy.log")),
                standardError: .file(cluster.workspace.file("haproxy.err"))))
        let front = "http://\(cluster.address("lb")):8080"
        // Every node up in both backends (two checks a second apart each).
        do {
            try await waitFor("HAProxy", client: client, curl: curl, url: front + "/api/v1/health")
        } catch {
            print(
                "HAProxy said:\n\(tail(cluster.workspace.file("haproxy.err")))\n\(tail(cluster.workspace.file("haproxy.log")))"
            )
            throw error
        }
        try await Task.sleep(for: .seconds(3))

        let sharedPath = try #require(URL(string: try await sign(files + "/shared.bin"))).path
        let answers = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for _ in 0..<20 {
                group.addTask { try await Curl.fetch(curl, front + sharedPath, launcher: client) }
            }
            var answers: [CurlResponse] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.allSatisfy { $0.status == 200 && $0.body == shared }, "\(answers.map(\.status))")
        let requests = ((try? String(contentsOfFile: cluster.workspace.file("files.log"), encoding: .utf8)) ?? "")
            .components(separatedBy: "\n").filter { $0.contains("\"GET /shared.bin") }
        #expect(requests.count == 1, "the provider's log: \(requests)")
        // One node's cache holds it: the one the path hashes to.
        let holders = nodes.filter { name in
            let cache = cluster.workspace.file("\(name)/cache")
            let files = FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []
            return files.contains { file in
                ((try? FileManager.default.attributesOfItem(atPath: cache + "/" + file))?[.size] as? Int ?? 0)
                    >= shared.count
            }
        }
        #expect(holders.count == 1, "nodes holding the file: \(holders)")
    }

    /// Viewers on all three nodes; the node reading the channel is killed: the others keep
    /// playing, one of them takes the provider connection over.
    static func ownerKilled(
        _ cluster: Cluster, tools: Tools, bearer: [String], channel: String, live: String
    ) async throws {
        let client = try cluster.lan.on("client")
        let curl = tools[.curl]
        // n1 plays first, so n1 reads the provider.
        var viewers: [String: ChildProcess] = [:]
        for name in nodes {
            let output = cluster.workspace.file("viewer-\(name).ts")
            viewers[name] = try ChildProcess(
                client[0],
                Array(client.dropFirst()) + [
                    curl, "-s", "--max-time", "30", "-o", output, cluster.node(name) + "\(channel)",
                ])
            try await Task.sleep(for: .seconds(name == "n1" ? 2 : 1))
        }
        let answer = try await Curl.fetch(
            curl, cluster.node("n2") + "/api/v1/cluster", options: bearer, launcher: client)
        let before = try decoder.decode(ClusterAnswer.self, from: Data(answer.body))
        let claimed = try #require(before.nodes.first { $0.id == "n1" }?.channels.first, "\(before.nodes)")

        func size(_ name: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: cluster.workspace.file("viewer-\(name).ts")))?[.size]
                as? Int) ?? 0
        }
        try await Task.sleep(for: .seconds(2))
        await cluster.servers["n1"]?.stop(signal: SIGKILL)
        let killedAt = ContinuousClock.now
        let sizesAtKill = (size("n2"), size("n3"))
        // How long each survivor's viewer went without a byte (printed: the figure is the bench's).
        var lastGrowth = ["n2": killedAt, "n3": killedAt]
        var lastSize = ["n2": sizesAtKill.0, "n3": sizesAtKill.1]
        var longestGap = ["n2": Duration.zero, "n3": Duration.zero]
        while ContinuousClock.now - killedAt < .seconds(12) {
            try await Task.sleep(for: .milliseconds(100))
            for name in ["n2", "n3"] {
                let now = size(name)
                if now > lastSize[name]! {
                    longestGap[name] = max(longestGap[name]!, ContinuousClock.now - lastGrowth[name]!)
                    lastGrowth[name] = .now
                    lastSize[name] = now
                }
            }
        }
        print("viewer gaps after the owner was killed: \(longestGap)")
        for name in ["n2", "n3"] {
            let lines = (cluster.servers[name]?.log ?? "").components(separatedBy: "\n").filter {
                $0.contains("upstream")
            }
            print("\(name):\n" + lines.suffix(8).joined(separator: "\n"))
        }
        for name in ["n2", "n3"] {
            // Still connected, and well past the kill: their streams went on.
            #expect(viewers[name]?.isRunning == true, "\(name)'s viewer is still connected")
            #expect(size(name) > (name == "n2" ? sizesAtKill.0 : sizesAtKill.1) + 200_000, "\(name) kept receiving")
        }
        // The claim moved to a survivor, and the provider has one connection again.
        let after = try decoder.decode(
            ClusterAnswer.self,
            from: Data(
                try await Curl.fetch(curl, cluster.node("n3") + "/api/v1/cluster", options: bearer, launcher: client)
                    .body))
        #expect(after.nodes.map(\.id) == ["n2", "n3"])
        #expect(after.nodes.filter { $0.channels == [claimed] }.count == 1, "\(after.nodes)")
        let counted = try await Curl.fetch(curl, live + "/count/ch0", launcher: client)
        #expect(String(decoding: counted.body, as: UTF8.self).hasSuffix(" 1"), "one provider connection open")
        for viewer in viewers.values { _ = await viewer.wait() }
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                cluster.workspace.file("viewer-n2.ts"),
            ])
        #expect(probe.output.contains("h264"), "\(probe.transcript)")
    }

    /// Waits (at most 30 s) until `url` answers 200 from the client's host.
    static func waitFor(_ what: String, client: [String], curl: String, url: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await Curl.fetch(curl, url, timeout: .seconds(3), launcher: client).status == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw EndToEndError("\(what) did not answer \(url) within 30 s")
    }

    /// The last lines of a file the test wrote (a helper process's log), for a failure's message.
    static func tail(_ path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "(nothing)").suffix(3000))
    }
}
