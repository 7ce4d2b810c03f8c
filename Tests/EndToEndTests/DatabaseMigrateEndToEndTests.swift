import Foundation
import Testing
import TunerStorage
import TunerTesting

/// `tuner database migrate` with the real binary on the real 194,918-entry playlist and a guide of
/// real programmes: SQLite → PostgreSQL → SQLite, with `tuner serve` started on each giving the same
/// answers (channel pages, search, guide, favourites, outputs, M3U, keys, logins, transfers), and a
/// target that already holds data refused without `--replace`.
@Suite struct DatabaseMigrateEndToEndTests {
    /// Python: the whole playlist (tvg-ids given to the first live channels that lack one) and a
    /// guide for those channels from Jellyfin's UK guide (real titles and descriptions), its days
    /// moved so that they begin a day before now.
    static let prepareScript = #"""
        import calendar, re, sys, time, zlib
        source, uk, playlist, guide, channels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
        text = zlib.decompress(open(source, "rb").read(), -15).decode("utf-8", "replace")
        out, ids, pending = [], [], None
        for line in text.splitlines():
            if line.startswith("#EXTINF") and pending is None:
                pending = line
            elif pending is not None and line.strip() and not line.startswith("#"):
                if len(ids) < channels and "/movie/" not in line and "/series/" not in line and 'tvg-id="' not in pending:
                    ids.append("uk%d.test" % len(ids))
                    pending = pending.replace("#EXTINF:-1", '#EXTINF:-1 tvg-id="%s"' % ids[-1], 1)
                out += [pending, line.strip()]
                pending = None
            elif not line.startswith("#EXTINF"):
                out.append(line)
        open(playlist, "w").write("\n".join(out) + "\n")
        ukText = open(uk, encoding="iso-8859-1").read()
        programmes = re.findall(r'<programme\b[^>]*>.*?</programme>', ukText, re.S)
        byChannel = {}
        for p in programmes:
            byChannel.setdefault(re.search(r'channel="([^"]*)"', p).group(1), []).append(p)
        lists = list(byChannel.values())
        def parse(t):
            return calendar.timegm(time.strptime(t[:14], "%Y%m%d%H%M%S"))
        first = min(parse(re.search(r'start="([^"]*)"', p).group(1)) for p in programmes)
        now = int(time.time())
        shift = (now - now % 86400 - 86400) - (first - first % 86400)
        def move(match):
            return '%s="%s +0000"' % (match.group(1), time.strftime("%Y%m%d%H%M%S", time.gmtime(parse(match.group(2)) + shift)))
        with open(guide, "w", encoding="utf-8") as g:
            g.write('<?xml version="1.0" encoding="UTF-8"?>\n<tv>\n')
            for i in ids:
                g.write('<channel id="%s"><display-name>%s</display-name></channel>\n' % (i, i))
            for n, i in enumerate(ids):
                for p in lists[n % len(lists)]:
                    p = re.sub(r'channel="[^"]*"', 'channel="%s"' % i, p)
                    g.write(re.sub(r'(start|stop)="(\d{14})[^"]*"', move, p) + "\n")
            g.write("</tv>\n")
        print(len(out) // 2, len(ids), len(programmes))
        """#

    /// `../shared/data`'s UK guide from Jellyfin.XmlTv, or nil.
    static var ukGuide: String? {
        guard let playlist = WebAppLargePlaylistTests.realPlaylist else { return nil }
        let root = playlist.components(separatedBy: "/M3U8Decoder/")[0]
        let path = root + "/Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/UK_Data.xml"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    @Test(
        "SQLite → PostgreSQL → SQLite: the same answers from tuner serve on each, and no copy over data",
        .enabled(if: TestPostgres.isAvailable))
    func roundTrip() async throws {
        // It names its own databases: once is enough, in the SQLite pass.
        if EndToEndDatabase.skipsSQLiteFileTest("it copies between engines itself") { return }
        guard let tools = Tools.require(.curl) else { return }
        guard let playlistSource = WebAppLargePlaylistTests.realPlaylist, let ukGuide = Self.ukGuide else {
            let message = "the shared data (../shared/data) with the playlist and the UK guide is missing"
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record(Comment(rawValue: message)) }
            return
        }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let (playlist, guide) = (workspace.file("playlist.m3u"), workspace.file("guide.xml"))
        try Data(Self.prepareScript.utf8).write(to: URL(fileURLWithPath: workspace.file("prepare.py")))
        let prepared = try await Subprocess.run(
            "/usr/bin/env", ["python3", workspace.file("prepare.py"), playlistSource, ukGuide, playlist, guide, "40"],
            timeout: .seconds(120))
        #expect(prepared.succeeded, "\(prepared.transcript)")

        // The folder's state, made as a user makes it.
        for arguments in [
            ["sources", "add", playlist], ["sources", "add", guide, "--guide"], ["outputs", "add", "all"],
            ["keys", "add", "living-room", "--scope", "read"],
        ] {
            let result = try await TunerProcess.run(arguments + ["--data", data], timeout: .seconds(300))
            #expect(result.succeeded, "\(arguments): \(result.transcript)")
        }
        let user = try await Subprocess.run(
            "/bin/sh",
            [
                "-c", "echo secret-pass | \"$0\" users add alice --password-stdin --data \"$1\"", TunerProcess.binary,
                data,
            ])
        #expect(user.succeeded, "\(user.transcript)")
        let origin = try await TestOrigin.start()
        let download = try await TunerProcess.run(
            ["download", origin.baseURL + "/files/movie.bin?size=300000", "--wait", "--data", data],
            timeout: .seconds(120))
        #expect(download.succeeded, "\(download.transcript)")
        try await origin.shutdown()

        let server = try await TunerProcess.serve(data: data)
        let channels = try Self.json(
            try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/channels?limit=5").body)
        let ids = ((channels["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }
        #expect(ids.count == 5, "\(channels)")
        for id in ids.prefix(3).reversed() {
            let favourite = try await Curl.fetch(
                tools[.curl], server.baseURL + "/api/v1/favourites/\(id)", options: ["-X", "PUT"])
            #expect((200..<300).contains(favourite.status))
        }
        // One set of paths for all three runs, the guide's hours fixed now (a run may cross an hour).
        let paths = Self.paths(now: Int(Date().timeIntervalSince1970))
        let onSQLite = try await Self.answers(tools[.curl], server, paths)
        await server.stop()
        #expect(onSQLite.bodies.count == paths.count)

        let address = try await TestPostgres.createDatabase()
        let postgres = "postgres://\(address.username)@\(address.host):\(address.port)/\(address.database)"
        do {
            let there = try await TunerProcess.run(
                ["database", "migrate", "--data", data, "--to", postgres], timeout: .seconds(300))
            #expect(there.succeeded, "\(there.transcript)")
            #expect(!there.output.contains("MISMATCH") && there.output.contains("catalogItem"), "\(there.output)")
            // Once there, the same target is not written over.
            let again = try await TunerProcess.run(["database", "migrate", "--data", data, "--to", postgres])
            #expect(again.status == 1 && again.errorOutput.contains("--replace"), "\(again.transcript)")

            let onPostgres = try await TunerProcess.serve(data: data, arguments: ["--database", postgres])
            let postgresAnswers = try await Self.answers(tools[.curl], onPostgres, paths)
            await onPostgres.stop()
            // PostgreSQL ranks search matches by its own bm25: the same matches, perhaps in another
            // order (a direct import into PostgreSQL orders them as the copy does).
            Self.compare(postgresAnswers, onSQLite, "PostgreSQL", searchOrderMatters: false)

            let back = "sqlite:" + workspace.file("back.sqlite")
            let home = try await TunerProcess.run(
                ["database", "migrate", "--data", data, "--database", postgres, "--to", back], timeout: .seconds(300))
            #expect(home.succeeded, "\(home.transcript)")
            let onCopy = try await TunerProcess.serve(data: data, arguments: ["--database", back])
            let copyAnswers = try await Self.answers(tools[.curl], onCopy, paths)
            await onCopy.stop()
            Self.compare(copyAnswers, onSQLite, "SQLite again", searchOrderMatters: true)
            await TestPostgres.drop(address)
        } catch {
            await TestPostgres.drop(address)
            throw error
        }
    }

    /// What a player and the web app ask (the guide over fixed hours of the moved UK days).
    static func paths(now: Int) -> [String] {
        let start = now - now % 3600
        return [
            "/api/v1/sources", "/api/v1/channels?limit=100", "/api/v1/channels?offset=150000&limit=100",
            "/api/v1/channels?kind=all&offset=194000&limit=100", "/api/v1/channels?search=news&limit=300",
            "/api/v1/channels?search=news%20sky&limit=300", "/api/v1/channels?search=caf&limit=300",
            "/api/v1/channels?search=cam%C3%A9ra%20caf%C3%A9&kind=movie&limit=300",
            "/api/v1/channels?search=camera%20cafe&kind=movie&limit=300",
            "/api/v1/channels?kind=movie&limit=100", "/api/v1/guide?from=\(start)&to=\(start + 6 * 3600)&limit=60",
            "/api/v1/favourites", "/api/v1/outputs", "/api/v1/outputs/all/channels", "/output/all.m3u",
            "/output/all.xml", "/api/v1/keys", "/api/v1/users", "/api/v1/transfers",
        ]
    }

    /// One run's answers and the clock around them: the XMLTV output's window follows the clock.
    struct Answers {
        var bodies: [String: (Int, String)] = [:]
        var started = 0
        var ended = 0
    }

    /// Each path's status and body, the server's own address taken out (each run has its port).
    static func answers(_ curl: String, _ server: TunerProcess, _ paths: [String]) async throws -> Answers {
        var answers = Answers(started: Int(Date().timeIntervalSince1970))
        for path in paths {
            let response = try await Curl.fetch(curl, server.baseURL + path)
            answers.bodies[path] = (
                response.status,
                String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: server.baseURL, with: "BASE")
            )
        }
        answers.ended = Int(Date().timeIntervalSince1970) + 1
        return answers
    }

    /// JSON compared parsed (key order is the encoder's business), the rest byte for byte.
    static func compare(_ answers: Answers, _ expected: Answers, _ engine: String, searchOrderMatters: Bool) {
        for path in expected.bodies.keys.sorted() {
            guard let (status, answer) = answers.bodies[path],
                let (expectedStatus, expectedAnswer) = expected.bodies[path]
            else {
                Issue.record("\(path): no answer")
                continue
            }
            var (body, expectedBody) = (answer, expectedAnswer)
            #expect(status == expectedStatus && status == 200, "\(engine) \(path): \(status) \(body.prefix(300))")
            if path.hasSuffix(".xml") {
                // Only the programmes that both runs' windows hold: from six hours back (and the
                // hourly placeholders from an hour back) to two days ahead of each run's clock.
                let from = max(answers.ended, expected.ended)
                let to = min(answers.started, expected.started) + 2 * 86_400 - 2 * 3600
                (body, expectedBody) = (
                    Self.programmes(in: body, from, to), Self.programmes(in: expectedBody, from, to)
                )
                #expect(expectedBody.contains("<programme"), "\(path): no programme within both runs' windows")
            }
            var parsed = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? NSObject
            var expectedParsed = try? JSONSerialization.jsonObject(with: Data(expectedBody.utf8)) as? NSObject
            if path.contains("search="), let page = expectedParsed as? [String: Any] {
                // The whole result on one page, so that another order cannot mean other items.
                #expect((page["total"] as? Int ?? 0) <= (page["limit"] as? Int ?? 0), "\(path): \(page["total"] ?? 0)")
            }
            if !searchOrderMatters, path.contains("search=") {
                (parsed, expectedParsed) = (parsed.map(Self.unordered), expectedParsed.map(Self.unordered))
            }
            if let parsed, let expectedParsed {
                #expect(
                    parsed == expectedParsed, "\(engine) \(path): \(body.prefix(600)) ≠ \(expectedBody.prefix(600))")
            } else {
                let lines = (body.split(separator: "\n"), expectedBody.split(separator: "\n"))
                let first =
                    zip(lines.0, lines.1).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(lines.0.count, lines.1.count)
                let difference =
                    "line \(first) of \(lines.0.count) (\(lines.1.count) expected): "
                    + "\(lines.0.dropFirst(first).prefix(3)) ≠ \(lines.1.dropFirst(first).prefix(3))"
                #expect(body == expectedBody, "\(engine) \(path): \(difference)")
            }
            #expect(body.count > 20, "\(path) answered almost nothing: \(body)")
        }
    }

    /// An XMLTV document without the programmes that start before `from` or stop after `to`.
    static func programmes(in document: String, _ from: Int, _ to: Int) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMddHHmmss"
        let (first, last) = (
            format.string(from: Date(timeIntervalSince1970: Double(from))),
            format.string(from: Date(timeIntervalSince1970: Double(to)))
        )
        let pieces = document.components(separatedBy: "  <programme start=\"")
        // Each piece after the first begins `YYYYMMDDhhmmss +0000" stop="YYYYMMDDhhmmss +0000"`,
        // and the times compare as text.
        let kept = pieces.dropFirst().filter { piece in
            let start = String(piece.prefix(14))
            let stop = String(piece.dropFirst(28).prefix(14))
            return start >= first && stop <= last
        }
        let closing = pieces.count > 1 && pieces.last?.contains("</tv>") == true ? "</tv>\n" : ""
        return ([pieces[0]] + kept.map { $0.replacingOccurrences(of: "</tv>\n", with: "") }).joined(
            separator: "  <programme start=\"") + closing
    }

    /// A page with its items sorted by id: what matched, whatever the rank.
    static func unordered(_ page: NSObject) -> NSObject {
        guard var dictionary = page as? [String: Any], let items = dictionary["items"] as? [[String: Any]] else {
            return page
        }
        dictionary["items"] = items.sorted { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }
        return dictionary as NSDictionary
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] ?? [:]
    }
}
