import Foundation
import Logging
import MediaFormats
import NIOConcurrencyHelpers
import Testing
import TunerApp
import TunerTesting

@testable import TunerServer

/// Provider credentials never leave the server: not in an API answer (sources, channels,
/// transfers, errors), not in a log line.
@Suite struct SecretsInAnswersTests {
    static let password = "SECRETPW"

    static let xtreamResponses: [String: String] = [
        "get_live_categories": #"[{"category_id":"1","category_name":"News"}]"#,
        "get_live_streams":
            #"[{"num":1,"name":"BBC One","stream_id":101,"epg_channel_id":"bbc1.uk","category_id":"1","tv_archive":1,"tv_archive_duration":"7"}]"#,
        "get_vod_categories": "[]",
        "get_vod_streams": #"[{"num":1,"name":"Film","stream_id":"9001","container_extension":"mkv"}]"#,
        "get_series_categories": "[]", "get_series": "[]",
    ]

    @Test func anXtreamAccountsPasswordIsInNoAnswer() async throws {
        let fake = try await XtreamFake.start(
            username: "alice", password: Self.password, responses: Self.xtreamResponses)
        let harness = try await ProxyHarness.start()
        var answers: [String] = []
        func fetch(_ path: String, method: String = "GET", json: String? = nil) async throws -> Fetched {
            let fetched = try await HTTP.fetch(harness.api + path, method: method, json: json)
            answers.append("\(method) \(path) → \(fetched.status): " + String(decoding: fetched.body, as: UTF8.self))
            return fetched
        }
        let added = try await fetch(
            "/sources", method: "POST",
            json: """
                {"kind":"xtream","location":"\(fake.baseURL)","username":"alice","password":"\(Self.password)"}
                """)
        #expect(added.status == 201)
        let id = try #require(try HTTP.json(added)["id"] as? Int)
        _ = try await fetch("/sources/\(id)/refresh", method: "POST")
        _ = try await fetch("/sources")
        let channels = try await fetch("/channels?kind=all")
        let items = try #require(try HTTP.json(channels)["items"] as? [[String: Any]])
        #expect(items.count == 2, "\(answers)")
        let channelID = try #require(items.first?["id"] as? Int)
        _ = try await fetch("/channels/\(channelID)")
        let play = try await fetch("/channels/\(channelID)/play")
        #expect(play.status == 200)
        _ = try await fetch("/guide/now")
        // A transfer from a URL with credentials in it, and an error that quotes such a URL.
        _ = try await fetch(
            "/transfers", method: "POST",
            json: """
                {"url":"http://127.0.0.1:9/a.ts?username=alice&password=\(Self.password)","paused":true}
                """)
        _ = try await fetch("/transfers")
        let ftp = try await fetch(
            "/sources", method: "POST",
            json: """
                {"kind":"m3u","location":"ftp://alice:\(Self.password)@127.0.0.1/x.m3u"}
                """)
        #expect(ftp.status == 400, "the server fetches only http(s)")
        // Local files only inside the files root.
        for location in ["file:///etc/passwd", "/etc/passwd", "relative.m3u", "http:///nohost"] {
            let refused = try await fetch(
                "/sources", method: "POST", json: #"{"kind":"m3u","location":"\#(location)"}"#)
            #expect([400, 403].contains(refused.status), "\(location)")
        }
        let local = harness.dataDirectory + "/files/list.m3u"
        try Data("#EXTM3U\n#EXTINF:-1,One\nhttp://127.0.0.1:9/1.ts\n".utf8).write(to: URL(fileURLWithPath: local))
        let allowed = try await fetch("/sources", method: "POST", json: #"{"kind":"m3u","location":"\#(local)"}"#)
        #expect(allowed.status == 201)
        for answer in answers {
            #expect(!answer.contains(Self.password), "\(answer)")
        }
        #expect(answers.contains { $0.contains(SecretRedactorPlaceholder.text) }, "the redacted URLs are still shown")
        try await harness.stop()
        try await fake.shutdown()
    }

    @Test func aLogLineKeepsItsURLsButNotTheirSecrets() {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "test") { _ in
            RedactingLogHandler(wrapping: CollectingLogHandler(lines: lines))
        }
        logger[metadataKey: "source"] = "http://p.example/get.php?username=alice&password=\(Self.password)"
        struct Failure: Error, CustomStringConvertible {
            var description: String { "cannot fetch http://alice:\(SecretsInAnswersTests.password)@p.example/x" }
        }
        logger.error(
            "fetch of http://p.example/live/alice/\(Self.password)/1.ts failed", error: Failure(),
            metadata: [
                "url": "\("http://p.example/a?token=\(Self.password)")",
                "nested": ["x": .array(["pass=\(Self.password)"])],
            ])
        let logged = lines.withLockedValue { $0 }
        #expect(logged.count == 1)
        #expect(!logged.joined().contains(Self.password), "\(logged)")
        // Kept as set (redacted on the way out), but never read back with its secret.
        #expect(!"\(logger[metadataKey: "source"] ?? "")".contains(Self.password))
        #expect(!"\(logger.handler.metadata)".contains(Self.password))
        #expect(logged.joined().contains("http://p.example/live/"), "the URL itself stays: \(logged)")
        #expect(logged.joined().contains("p.example/get.php"), "the logger's own metadata reaches the entry: \(logged)")
    }

    @Test func redactionKeepsTheJSONValid() throws {
        let tricky = #"{"a":"http://h/x?password=ab\"cd&z=1","b":"plain \\ text","c":"pass=q\\","d":[1,true,null]}"#
        let redacted = JSONSecretRedactor.redacted(Data(tricky.utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: redacted) as? [String: Any])
        #expect((object["a"] as? String)?.contains("ab") == false)
        #expect(object["b"] as? String == #"plain \ text"#)
        #expect(object["c"] as? String == "pass=REDACTED")
        #expect(
            JSONSecretRedactor.redacted(Data(#"{"x":"http://h/a.ts"}"#.utf8)) == Data(#"{"x":"http://h/a.ts"}"#.utf8))
    }

    /// Header values carry no `=`, `@` or `/` for the URL redaction to see: credential headers are
    /// recognised by name, in any model that encodes headers as name and value.
    @Test func credentialHeaderValuesAreRedactedByName() throws {
        struct Header: Encodable {
            var name: String
            var value: String
        }
        struct Task: Encodable {
            var headers: [Header]
            var note: String
        }
        let task = Task(
            headers: [
                Header(name: "Authorization", value: "Bearer SECRET\"TOKEN"), Header(name: "cookie", value: "s=SECRET"),
                Header(name: "User-Agent", value: "VLC/3.0"),
                Header(name: "Proxy-Authorization", value: "Basic SECRET"),
            ], note: #"{"name":"Authorization","value":"in text"}"#)
        let data = JSONSecretRedactor.redactingCredentialHeaders(try RedactingJSONEncoder.makeEncoder().encode(task))
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("SECRET"), "\(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let headers = try #require(object["headers"] as? [[String: String]])
        #expect(headers.map { $0["value"] } == ["REDACTED", "REDACTED", "VLC/3.0", "REDACTED"])
        #expect(
            object["note"] as? String == #"{"name":"Authorization","value":"in text"}"#,
            "a string's content is not a pair")
    }

    @Test func aTransfersAuthorizationHeaderIsInNoAnswer() async throws {
        let harness = try await ProxyHarness.start()
        let added = try await HTTP.fetch(
            harness.api + "/transfers", method: "POST",
            json:
                #"{"url":"\#(harness.origin.baseURL)/files/t.bin?size=10","headers":{"Authorization":"Bearer SECRETTOKEN"},"paused":true}"#
        )
        #expect(added.status == 201 || added.status == 200, "\(String(decoding: added.body, as: UTF8.self))")
        #expect(!String(decoding: added.body, as: UTF8.self).contains("SECRETTOKEN"))
        let listed = try await HTTP.fetch(harness.api + "/transfers")
        #expect(listed.status == 200)
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(text.contains("Authorization") && !text.contains("SECRETTOKEN"), "\(text)")
        try await harness.stop()
    }
}

enum SecretRedactorPlaceholder {
    static let text = "REDACTED"
}

/// Keeps formatted log lines (message, metadata, error) in memory.
struct CollectingLogHandler: LogHandler {
    let lines: NIOLockedValueBox<[String]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLockedValue { $0.append("\(event.message) \(all) \(event.error.map { "\($0)" } ?? "")") }
    }
}
