import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The default fetch policy beyond loopback (`remote`), across a real network boundary: a provider
/// in its own network namespace, reached over a veth pair, redirects to a service on the server's
/// loopback. Refused under the default, followed under `--allow-fetch any`.
@Suite(.serialized) struct FetchPolicyNetworkTests {
    static let spellings = ["127.0.0.1", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost"]

    /// A redirecting HTTP server: `/r<i>` answers 302 to spelling `i` of the secret service,
    /// anything else 200 `hello`. Prints its port.
    static let provider = """
        import http.server, sys
        host, secret = sys.argv[1], sys.argv[2]
        targets = ["127.0.0.1", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost"]
        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/r"):
                    self.send_response(302)
                    target = targets[int(self.path[2])]
                    self.send_header("Location", "http://%s:%s/files/s.bin?size=10" % (target, secret))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", "5")
                    self.end_headers()
                    self.wfile.write(b"hello")
            def log_message(self, *args):
                pass
        server = http.server.HTTPServer((host, 0), H)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    @Test("beyond loopback, a provider on another network may not redirect to this machine; with 'any' it may")
    func defaultBeyondLoopbackRefusesThisMachine() async throws {
        guard let tools = Tools.require(.curl), NetworkNamespaces.available() else { return }
        let tag = NetworkNamespaces.tag()
        let namespace = "tuner-\(tag)"
        let subnet = "10.231.\(Int.random(in: 0..<250))"
        let (hostAddress, providerAddress) = ("\(subnet).1", "\(subnet).2")
        let workspace = try Workspace()
        var child: ChildProcess?
        var failure: (any Error)?
        do {
            try await NetworkNamespaces.ip(["netns", "add", namespace])
            try await NetworkNamespaces.link(
                (nil, hostAddress + "/30"), (namespace, providerAddress + "/30"), tag: tag)
            try await Self.run(
                curl: tools[.curl], workspace: workspace, namespace: namespace, providerAddress: providerAddress,
                child: &child)
        } catch {
            failure = error
        }
        child?.send(SIGKILL)
        _ = await child?.wait()
        await NetworkNamespaces.remove(namespaces: [namespace], links: [NetworkNamespaces.linkName(tag)])
        workspace.remove()
        if let failure { throw failure }
    }

    static func run(
        curl: String, workspace: Workspace, namespace: String, providerAddress: String, child: inout ChildProcess?
    ) async throws {
        let secret = try await TestOrigin.start()
        defer { Task { try? await secret.shutdown() } }
        let portFile = workspace.file("provider.port")
        let python = try #require(ExternalCommand.path(of: "python3"), "python3 is needed")
        let ip = try #require(ExternalCommand.path(of: "ip"))
        child = try ChildProcess(
            ip, ["netns", "exec", namespace, python, "-c", Self.provider, providerAddress, String(secret.port)],
            standardOutput: .file(portFile), standardError: .file(workspace.file("provider.err")))
        var providerPort: Int?
        let deadline = ContinuousClock.now + .seconds(20)
        while providerPort == nil, ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
            providerPort = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            if providerPort == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let port = try #require(providerPort, "the provider in \(namespace) did not start")
        let provider = "http://\(providerAddress):\(port)"
        // 128 bits and more: a token beyond loopback must be strong.
        let token = UUID().uuidString.lowercased() + UUID().uuidString.lowercased()

        func proxied(_ server: TunerProcess, _ url: String) async throws -> CurlResponse {
            let minted = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/proxy-urls",
                options: [
                    "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                    "--data", #"{"url":"\#(url)"}"#,
                ])
            let object = try JSONSerialization.jsonObject(with: Data(minted.body)) as? [String: Any]
            let proxyURL = try #require(
                object?["proxyURL"] as? String, "\(minted.status) \(String(decoding: minted.body, as: UTF8.self))")
            return try await Curl.fetch(curl, proxyURL, timeout: .seconds(30))
        }

        // The default beyond loopback: the provider on the other network is reached, its redirects
        // to this machine are not, under any spelling.
        let guarded = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--host", "0.0.0.0"], environment: ["TUNER_TOKEN": token])
        let plain = try await proxied(guarded, provider + "/ok")
        #expect(plain.status == 200 && plain.body == Array("hello".utf8), "\(plain.status)")
        for index in Self.spellings.indices {
            let answer = try await proxied(guarded, provider + "/r\(index)")
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 403 && text.contains("--allow-fetch"), "\(Self.spellings[index]): \(text)")
        }
        #expect(secret.requestCount == 0)
        let settings = try await Curl.fetch(
            curl, guarded.baseURL + "/settings", options: ["-H", "Authorization: Bearer \(token)"])
        let page = String(decoding: settings.body, as: UTF8.self)
        #expect(settings.status == 200 && page.contains(">remote<"), "the settings page: \(settings.status)")
        await guarded.stop()

        // `--allow-fetch any`: the same redirect goes through, so the test above can fail.
        let open = try await TunerProcess.serve(
            data: workspace.file("open"), arguments: ["--host", "0.0.0.0", "--allow-fetch", "any"],
            environment: ["TUNER_TOKEN": token])
        let through = try await proxied(open, provider + "/r0")
        #expect(through.status == 200, "\(through.status)")
        #expect(secret.requests(path: "/files/s.bin") == 1)
        await open.stop()
    }
}
