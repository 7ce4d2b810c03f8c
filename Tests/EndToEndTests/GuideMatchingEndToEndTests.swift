import Foundation
import Testing
import TunerTesting

/// Guide matching by name through the real `tuner serve` and curl: channels without a `tvg-id`
/// get their guide by name, the XMLTV output carries it, a refused match and "no guide" hold, and
/// hostile requests are refused with the reason.
@Suite struct GuideMatchingEndToEndTests {
    @Test("channels without tvg-id get their guide by name; refusal, no guide and hostile requests")
    func matchingThroughTheAPI() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let origin = try await TestOrigin.start()
        origin.serveDirectory(served)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMddHHmmss"
        let (start, stop) = (format.string(from: Date() - 1800), format.string(from: Date() + 1800))
        func programme(_ channel: String, _ title: String) -> String {
            #"<programme start="\#(start) +0000" stop="\#(stop) +0000" channel="\#(channel)"><title>\#(title)</title></programme>"#
        }
        let guide = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv><channel id="BBCOne.uk"><display-name>BBC One</display-name></channel>
            <channel id="Channel4.uk"><display-name>Channel 4</display-name></channel>
            <channel id="Channel4Plus1.uk"><display-name>Channel 4 +1</display-name></channel>
            \(programme("BBCOne.uk", "Breakfast"))
            \(programme("Channel4.uk", "Countdown"))
            \(programme("Channel4Plus1.uk", "Countdown Again"))</tv>
            """
        try Data(guide.utf8).write(to: URL(fileURLWithPath: served + "/guide.xml"))
        let playlist = """
            #EXTM3U
            #EXTINF:-1 group-title="UK | General",UK: BBC One HD
            http://127.0.0.1:9/one.ts
            #EXTINF:-1,Channel 4 +1 (720p)
            http://127.0.0.1:9/four.ts
            """
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        defer { Task { _ = await server.stop() } }

        let json = ["-H", "Content-Type: application/json"]
        let body =
            #"{"location":"\#(origin.baseURL)/static/list.m3u","epgURLs":["\#(origin.baseURL)/static/guide.xml"]}"#
        let added = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources", options: ["-X", "POST", "--data", body] + json)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = Int(
            try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number))
        let refreshed = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/sources/\(source)/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200)

        let page = try await Curl.fetch(curl, server.baseURL + "/api/v1/channels")
        let channels = try JSONDecoder().decode([String: JSONValue].self, from: Data(page.body))["items"]?.array ?? []
        func id(_ name: String) throws -> Int {
            Int(try #require(channels.first { $0.object?["name"]?.string == name }?.object?["id"]?.number))
        }
        let (bbc, four) = (try id("UK: BBC One HD"), try id("Channel 4 +1 (720p)"))
        func suggestions(_ channel: Int) async throws -> [String: JSONValue] {
            let answer = try await Curl.fetch(curl, server.baseURL + "/api/v1/channels/\(channel)/guide-suggestions")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
        }
        let first = try await suggestions(bbc)
        #expect(first["automatic"]?.object?["epgID"]?.string == "BBCOne.uk")
        let best = try #require(first["suggestions"]?.array?.first?.object)
        #expect(best["epgID"]?.string == "BBCOne.uk")
        #expect(best["parts"]?.array?.contains { $0.object?["reason"]?.string == "words" } == true, "\(best)")
        #expect(try await suggestions(four)["automatic"]?.object?["epgID"]?.string == "Channel4Plus1.uk")

        func xmltv() async throws -> String {
            String(decoding: try await Curl.fetch(curl, server.baseURL + "/output/default.xml").body, as: UTF8.self)
        }
        var output = try await xmltv()
        #expect(output.contains("<title>Breakfast</title>") && output.contains("<title>Countdown Again</title>"))
        #expect(!output.contains("<title>Countdown</title>"), "the +1 channel is not given the +0's guide")

        // A refused match goes at once and is no longer suggested.
        let refused = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/channels/\(four)/guide-suggestions/refuse",
            options: ["-X", "POST", "--data", #"{"epgID":"channel4plus1.UK"}"#] + json)
        #expect(refused.status == 200, "\(String(decoding: refused.body, as: UTF8.self))")
        let after = try JSONDecoder().decode([String: JSONValue].self, from: Data(refused.body))
        #expect(after["automatic"] == nil || after["automatic"] == .null)
        #expect(after["suggestions"]?.array?.contains { $0.object?["epgID"]?.string == "Channel4Plus1.uk" } == false)
        output = try await xmltv()
        #expect(!output.contains("<title>Countdown Again</title>"))

        // "No guide" for a channel that matched: placeholders only.
        let none = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/channels/\(bbc)/guide-mapping",
            options: ["-X", "PUT", "--data", #"{"none":true}"#] + json)
        #expect(none.status == 200 && String(decoding: none.body, as: UTF8.self).contains(#""none":true"#))
        output = try await xmltv()
        #expect(!output.contains("<title>Breakfast</title>"))

        // The lineup editor's bulk accept: the refused channel takes its best remaining
        // suggestion; the one told "no guide" by hand keeps that.
        let identities = try ["UK: BBC One HD", "Channel 4 +1 (720p)"].map { name in
            try #require(channels.first { $0.object?["name"]?.string == name }?.object?["identity"]?.string)
        }
        let accepted = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/outputs/default/lineup/guides",
            options: ["-X", "POST", "--data", #"{"identities":["\#(identities[0])","\#(identities[1])"]}"#] + json)
        let counts = try JSONDecoder().decode([String: Int].self, from: Data(accepted.body))
        #expect(counts == ["accepted": 1, "alreadyGuided": 0, "chosenByHand": 1, "withoutSuggestion": 0], "\(counts)")
        output = try await xmltv()
        #expect(output.contains("<title>Countdown</title>") && !output.contains("<title>Breakfast</title>"))

        // Hostile or wrong requests: refused with the reason, nothing changed.
        for (path, method, data, status) in [
            ("/api/v1/channels/\(four)/guide-suggestions/refuse", "POST", #"{"epgID":""}"#, 400),
            (
                "/api/v1/channels/\(four)/guide-suggestions/refuse", "POST",
                #"{"epgID":"\#(String(repeating: "x", count: 600))"}"#, 400
            ),
            ("/api/v1/channels/999999/guide-suggestions/refuse", "POST", #"{"epgID":"BBCOne.uk"}"#, 404),
            ("/api/v1/channels/\(bbc)/guide-mapping", "PUT", #"{"epgID":"BBCOne.uk","none":true}"#, 400),
            ("/api/v1/channels/\(bbc)/guide-suggestions?limit=0", "GET", "", 400),
            ("/api/v1/channels/\(bbc)/guide-suggestions?limit=abc", "GET", "", 400),
            ("/api/v1/channels/999999/guide-suggestions", "GET", "", 404),
        ] {
            let options = method == "GET" ? [] : ["-X", method, "--data", data] + json
            let answer = try await Curl.fetch(curl, server.baseURL + path, options: options)
            #expect(answer.status == status, "\(method) \(path): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("error"), "\(path) says why")
        }
        #expect(!(try await xmltv()).contains("<title>Breakfast</title>"), "the refused requests changed nothing")
        try? await origin.shutdown()
    }
}
