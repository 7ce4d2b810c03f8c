import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Jellyfin's HDHomeRun flow across a real network: Tuner in one network namespace, beyond
/// loopback with a strong token and `--hdhomerun-http-port 80`, its provider on that namespace's
/// loopback; the player in another namespace, joined by a veth pair. The player finds Tuner by
/// broadcast, reads `discover.json` on port 80 with no key, follows `LineupURL`, plays a channel
/// with `?transcode=internet540` appended, reads `lineup.xml`, `lineup.m3u` and `/auto/v1`; the
/// API, pages, outputs and Xtream stay closed to it on both ports.
///
/// UDP 65001 has one owner per namespace: this Tuner's is in a namespace of its own.
@Suite(.serialized) struct HDHomeRunLANTests {
    /// A provider on the server namespace's loopback (Python's file server; only Tuner reaches it).
    static let providerPort = 8089

    @Test("Jellyfin across a LAN: broadcast, discover.json on port 80, the lineup, a channel plays; the rest is closed")
    func jellyfinFlowAcrossALAN() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe, .hdhomerunConfig), NetworkNamespaces.available()
        else { return }
        let tag = NetworkNamespaces.tag()
        let (serverSide, playerSide) = ("tuner-\(tag)-s", "tuner-\(tag)-p")
        let subnet = "10.232.\(Int.random(in: 0..<250))"
        let (serverAddress, playerAddress) = ("\(subnet).1", "\(subnet).2")
        let workspace = try Workspace()
        var provider: ChildProcess?
        var tuner: TunerProcess?
        var failure: (any Error)?
        do {
            try await NetworkNamespaces.ip(["netns", "add", serverSide])
            try await NetworkNamespaces.ip(["netns", "add", playerSide])
            // One /24: the player's broadcast reaches the server's side of the link.
            try await NetworkNamespaces.link(
                (serverSide, serverAddress + "/24"), (playerSide, playerAddress + "/24"), tag: tag)
            provider = try await Self.startProvider(
                tools: tools, workspace: workspace, namespace: serverSide)
            try await Self.run(
                tools: tools, workspace: workspace, serverSide: serverSide, playerSide: playerSide,
                serverAddress: serverAddress, tuner: &tuner)
        } catch {
            failure = error
        }
        if let tuner { await tuner.stop() }
        provider?.send(SIGKILL)
        _ = await provider?.wait()
        await NetworkNamespaces.remove(namespaces: [serverSide, playerSide])
        workspace.remove()
        if let failure { throw failure }
    }

    /// A 20-second TS channel and a playlist of two channels, served by Python on the server
    /// namespace's loopback; returns once it answers.
    static func startProvider(tools: Tools, workspace: Workspace, namespace: String) async throws -> ChildProcess {
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let made = try await Subprocess.run(
            tools[.ffmpeg],
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=20:size=320x240:rate=25", "-c:v",
                "libx264", "-preset", "ultrafast", "-g", "25", "-f", "mpegts", served + "/news.ts",
            ])
        #expect(made.succeeded, "\(made.transcript)")
        try FileManager.default.copyItem(atPath: served + "/news.ts", toPath: served + "/sport.ts")
        let origin = "http://127.0.0.1:\(providerPort)"
        let playlist = """
            #EXTM3U
            #EXTINF:-1 tvg-id="news.uk" group-title="News",News HD
            \(origin)/news.ts
            #EXTINF:-1 group-title="Sport",Sport
            \(origin)/sport.ts

            """
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        let python = try #require(ExternalCommand.path(of: "python3"), "python3 is needed")
        let command = try NetworkNamespaces.exec(
            in: namespace,
            [python, "-m", "http.server", String(providerPort), "--bind", "127.0.0.1", "--directory", served])
        let child = try ChildProcess(
            command[0], Array(command.dropFirst()), standardError: .file(workspace.file("provider.err")))
        let launcher = try NetworkNamespaces.exec(in: namespace, [])
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let answer = try await Curl.fetch(
                tools[.curl], origin + "/list.m3u", timeout: .seconds(5), launcher: launcher)
            if answer.status == 200 { return child }
            try await Task.sleep(for: .milliseconds(100))
        }
        child.send(SIGKILL)
        throw EndToEndError("the provider in \(namespace) did not answer within 20 s")
    }

    static func run(
        tools: Tools, workspace: Workspace, serverSide: String, playerSide: String, serverAddress: String,
        tuner: inout TunerProcess?
    ) async throws {
        let curl = tools[.curl]
        // 256 bits, as `openssl rand -hex 32` makes them.
        let token = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        let atServer = try NetworkNamespaces.exec(in: serverSide, [])
        let atPlayer = try NetworkNamespaces.exec(in: playerSide, [])
        let server = try await TunerProcess.serve(
            data: workspace.file("data"),
            arguments: [
                "--host", "0.0.0.0", "--hdhomerun-http-port", "80", "--hdhomerun-discovery-port", "65001",
                "--allow-fetch", "loopback", OutputsEndToEndTests.smallTranscode,
            ],
            environment: ["TUNER_TOKEN": token], launcher: atServer)
        tuner = server
        let bearer = ["-H", "Authorization: Bearer \(token)"]

        // The owner adds the provider's playlist, on the server's own loopback.
        let body = #"{"location":"http://127.0.0.1:\#(providerPort)/list.m3u"}"#
        let added = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources",
            options: bearer + ["-X", "POST", "-H", "Content-Type: application/json", "--data", body],
            launcher: atServer)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        let id = Int(try #require(source["id"]?.number))
        let refreshed = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources/\(id)/refresh", options: bearer + ["-X", "POST"],
            launcher: atServer)
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")

        // The player: a broadcast discovery (no address) finds Tuner across the link.
        let hdhomerunConfig = atPlayer + [tools[.hdhomerunConfig], "discover"]
        var found = ""
        for _ in 0..<10 where !found.contains("found at \(serverAddress)") {
            let discovered = try await Subprocess.run(
                hdhomerunConfig[0], Array(hdhomerunConfig.dropFirst()), timeout: .seconds(20))
            found = discovered.transcript
        }
        let words = found.split(whereSeparator: \.isWhitespace)
        let deviceID = try #require(
            words.firstIndex(of: "device").flatMap { $0 + 1 < words.count ? String(words[$0 + 1]) : nil },
            "discovery: \(found)")
        #expect(found.contains("hdhomerun device \(deviceID) found at \(serverAddress)"), "\(found)")

        // Jellyfin takes only the address and reads discover.json on port 80: no key, no token.
        let device = "http://\(serverAddress)"
        var discover = try await Curl.fetch(curl, device + "/discover.json", timeout: .seconds(10), launcher: atPlayer)
        for _ in 0..<50 where discover.status == 0 {
            // The port-80 listener starts beside the main one: wait for it, not for a time.
            try await Task.sleep(for: .milliseconds(200))
            discover = try await Curl.fetch(curl, device + "/discover.json", timeout: .seconds(10), launcher: atPlayer)
        }
        #expect(discover.status == 200, "\(String(decoding: discover.body, as: UTF8.self))")
        let model = try JSONDecoder().decode([String: JSONValue].self, from: Data(discover.body))
        // The fields and types of Jellyfin's DiscoverResponse.
        for field in ["FriendlyName", "ModelNumber", "FirmwareName", "FirmwareVersion", "DeviceAuth"] {
            #expect(model[field]?.string != nil, "\(field): \(model)")
        }
        #expect(model["DeviceID"]?.string == deviceID && model["TunerCount"]?.number != nil)
        let main = "http://\(serverAddress):\(server.port)"
        let baseURL = try #require(model["BaseURL"]?.string)
        #expect(baseURL.hasPrefix(main + "/output/default/key/"), "the main port, keyed: \(baseURL)")
        let lineupURL = try #require(model["LineupURL"]?.string)
        #expect(lineupURL == baseURL + "/lineup.json")

        // The lineup, as Jellyfin's Channels class reads it.
        let lineup = try await Curl.fetch(curl, lineupURL, launcher: atPlayer)
        #expect(lineup.status == 200)
        let channels = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(lineup.body))
        #expect(channels.map { $0["GuideNumber"]?.string } == ["1", "2"])
        #expect(channels.map { $0["GuideName"]?.string } == ["News HD", "Sport"])
        for channel in channels {
            #expect(channel["URL"]?.string?.hasPrefix(main + "/play/default/") == true, "\(channel)")
            #expect(channel["HD"]?.number != nil && channel["Favorite"]?.number != nil, "\(channel)")
            #expect(channel["VideoCodec"].map { $0.string != nil } ?? true, "\(channel)")
        }
        #expect(channels.first?["HD"]?.number == 1)
        let newsURL = try #require(channels.first?["URL"]?.string)

        // Jellyfin appends the transcode profile of HDTC models to the channel's URL.
        let ffprobe =
            atPlayer + [
                tools[.ffprobe], "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0",
            ]
        let played = try await Subprocess.run(
            ffprobe[0], Array(ffprobe.dropFirst()) + [newsURL + "?transcode=internet540"], timeout: .seconds(90))
        #expect(played.output.contains("video"), "\(played.transcript)\n\(server.log.suffix(3000))")

        // The other forms of the lineup, and /auto/v<GuideNumber>, on port 80 with no key.
        let xml = try await Curl.fetch(curl, device + "/lineup.xml", launcher: atPlayer)
        #expect(xml.status == 200)
        let programs = try await HDHomeRunOpenEndToEndTests.parsedWithElementTree(xml.body, workspace: workspace)
        #expect(
            programs == ["Lineup"] + channels.map { "\($0["GuideNumber"]?.string ?? "") \($0["URL"]?.string ?? "")" },
            "\(programs)")
        let m3u = try await Curl.fetch(curl, device + "/lineup.m3u", launcher: atPlayer)
        let m3uText = String(decoding: m3u.body, as: UTF8.self)
        #expect(m3u.status == 200 && m3uText.components(separatedBy: "#EXTINF").count - 1 == 2, "\(m3uText)")
        #expect(m3uText.contains("\n\(newsURL)\n"), "\(m3uText)")
        let auto = try await Subprocess.run(
            ffprobe[0], Array(ffprobe.dropFirst()) + [device + "/auto/v2"], timeout: .seconds(90))
        #expect(auto.output.contains("video"), "\(auto.transcript)\n\(server.log.suffix(3000))")
        #expect(try await Curl.fetch(curl, device + "/auto/v99", launcher: atPlayer).status == 404)

        // Without credentials, nothing else opens from the player's side, on either port.
        for base in [device, main] {
            for path in [
                "/api/v1/sources", "/api/v1/outputs", "/", "/settings", "/output/default.m3u",
                "/output/default.xml", "/output/default/lineup.json", "/get.php?username=x&password=y",
                "/xmltv.php?username=x&password=y", "/player_api.php?username=x&password=y",
                "/player_api.php", "/timeshift/x/y/60/2026-01-01:00-00/1.ts",
            ] {
                for accept in ["*/*", "text/html"] {
                    let answer = try await Curl.fetch(
                        curl, base + path, options: ["-H", "Accept: \(accept)"], launcher: atPlayer)
                    let text = String(decoding: answer.body, as: UTF8.self)
                    let refused = [303, 401, 403, 404].contains(answer.status) || text.contains(#""auth":0"#)
                    #expect(refused, "\(base)\(path) (\(accept)): \(answer.status) \(text.prefix(300))")
                    #expect(!text.contains("News HD") && !text.contains("127.0.0.1:\(providerPort)"), "\(path)")
                }
            }
        }
    }
}
