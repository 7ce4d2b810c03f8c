import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Only the user names local files, and every import is bounded (issue 25, part 2), against the
/// real `tuner` binary: a playlist naming local files, devices and FIFOs as its guide, catch-up
/// template and logo; local sources that are not regular files; endless playlists; gzip
/// refreshes that must leave no download behind; an Xtream panel's oversized answer.
@Suite struct ProviderLocationsEndToEndTests {
    /// `POST`s JSON (or nothing) and returns the status and the decoded object.
    static func call(
        _ curl: String, _ url: String, method: String = "GET", json: String? = nil, timeout: Duration = .seconds(120)
    ) async throws -> (status: Int, body: [String: Any], text: String) {
        var options = ["-X", method]
        if let json { options += ["-H", "Content-Type: application/json", "--data", json] }
        let answer = try await Curl.fetch(curl, url, options: options, timeout: timeout)
        let text = String(decoding: answer.body, as: UTF8.self)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        return (answer.status, object, text)
    }

    static func source(_ curl: String, _ server: TunerProcess, id: Int) async throws -> [String: Any] {
        let listed = try await call(curl, server.baseURL + "/api/v1/sources")
        return (listed.body["sources"] as? [[String: Any]])?.first { $0["id"] as? Int == id } ?? [:]
    }

    static func makeFIFO(_ path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw EndToEndError("mkfifo \(path) failed") }
    }

    @Test("A playlist naming local files, /dev/zero and a FIFO gets them refused and recorded; writes stay fast")
    func playlistLocalLocationsAreRefused() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let fifo = workspace.file("guide.fifo")
        try Self.makeFIFO(fifo)
        let stream = "\(origin.baseURL)/files/live.ts?type=video/mp2t"
        try Data(
            """
            #EXTM3U x-tvg-url="/etc/hostname,/dev/zero,\(fifo),file:///etc/hostname"
            #EXTINF:-1 tvg-id="a" tvg-logo="/etc/hostname" catchup="flussonic" catchup-source="file:///etc/hostname",A
            \(stream)
            #EXTINF:-1 tvg-id="b" tvg-logo="/dev/zero" catchup="xc" catchup-source="/dev/zero",B
            \(stream)
            #EXTINF:-1 tvg-id="c" tvg-logo="file://\(fifo)" catchup="flussonic" catchup-source="\(fifo)",C
            \(stream)

            """.utf8
        ).write(to: URL(fileURLWithPath: served + "/hostile.m3u"))
        // A second playlist that drips: its import is certainly still running while we write.
        try Data(
            ("#EXTM3U\n" + (0..<200).map { "#EXTINF:-1,Slow \($0)\nhttp://127.0.0.1:9/\($0).ts\n" }.joined()).utf8
        ).write(to: URL(fileURLWithPath: served + "/slow.m3u"))
        origin.serveDirectory(served)
        let server = try await TunerProcess.serve(data: workspace.file("data"))

        let added = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST",
            json: #"{"location":"\#(origin.baseURL)/static/hostile.m3u"}"#)
        let id = try #require(added.body["id"] as? Int, "\(added.text)")
        // Without the rule, the guide /dev/zero was read inside the writer: this never came back.
        let refreshed = try await Self.call(
            curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST", timeout: .seconds(60))
        #expect(refreshed.status == 200, "\(refreshed.text)\n\(server.log)")
        let source = try await Self.source(curl, server, id: id)
        let error = source["lastError"] as? String ?? ""
        #expect(source["status"] as? String == "ok", "\(source)")
        #expect((source["epgURLs"] as? [String] ?? ["?"]).isEmpty, "no local guide stored: \(source)")
        for refused in ["guide '/etc/hostname'", "guide '/dev/zero'", "guide '\(fifo)'", "refused 10 locations"] {
            #expect(error.contains(refused), "the source's error names \(refused): \(error)")
        }
        // Logos and catch-up templates are gone from the items: no logo to fetch, no local catch-up.
        let channels = try await Self.call(curl, server.baseURL + "/api/v1/channels")
        let items = channels.body["items"] as? [[String: Any]] ?? []
        #expect(items.count == 3, "\(channels.text)")
        for item in items {
            let itemID = item["id"] as? Int ?? 0
            #expect(item["logo"] == nil || item["logo"] is NSNull, "\(item)")
            let logo = try await Self.call(curl, server.baseURL + "/api/v1/channels/\(itemID)/logo")
            #expect(logo.status >= 400, "no logo from a local path: \(logo.status) \(logo.text)")
            let now = Int(Date().timeIntervalSince1970)
            let catchup = try await Self.call(
                curl, server.baseURL + "/api/v1/channels/\(itemID)/catchup?start=\(now - 3600)&end=\(now - 1800)")
            // Flussonic falls back to the URL built from the (http) stream; nothing names a local file.
            for local in ["hostname", "dev/zero", "fifo", "file:"] {
                #expect(!catchup.text.contains(local), "no catch-up URL from a local template: \(catchup.text)")
            }
        }
        // Nobody opened the FIFO: a writer finds no reader (ENXIO) rather than one stuck on it.
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        #expect(writer < 0 && errno == ENXIO, "the FIFO has no reader")
        if writer >= 0 { close(writer) }

        // A write while an import is running: the slow download holds no writer.
        let slow = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST",
            json: #"{"location":"\#(origin.baseURL)/static/slow.m3u?drip=200,100"}"#)
        let slowID = try #require(slow.body["id"] as? Int, "\(slow.text)")
        let slowRefresh = Task {
            try await Self.call(curl, server.baseURL + "/api/v1/sources/\(slowID)/refresh", method: "POST").status
        }
        for _ in 0..<200 where origin.bodyBytesSent(path: "/static/slow.m3u") == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let favourite = try await Self.call(
            curl, server.baseURL + "/api/v1/favourites/\(items.first?["id"] as? Int ?? 0)", method: "PUT",
            timeout: .seconds(10))
        #expect((200..<300).contains(favourite.status), "\(favourite.status) \(favourite.text)")
        let stillImporting = try await Self.source(curl, server, id: slowID)["status"] as? String
        #expect(stillImporting == "refreshing", "the write was answered while the import still ran")
        #expect(try await slowRefresh.value == 200)
        await server.stop()
        try await origin.shutdown()
    }

    @Test("Local sources that are FIFOs, folders, devices or links to them are refused by type (API and CLI)")
    func specialFilesAreRefusedByType() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let root = workspace.file("files")
        try FileManager.default.createDirectory(atPath: root + "/folder.m3u", withIntermediateDirectories: true)
        try Self.makeFIFO(root + "/pipe.m3u")
        try FileManager.default.createSymbolicLink(atPath: root + "/link.m3u", withDestinationPath: root + "/pipe.m3u")
        try FileManager.default.createSymbolicLink(atPath: root + "/zero.m3u", withDestinationPath: "/dev/zero")
        try Data("#EXTM3U\n#EXTINF:-1,Fine\nhttp://127.0.0.1:9/1.ts\n".utf8)
            .write(to: URL(fileURLWithPath: root + "/fine.m3u"))
        let data = workspace.file("data")

        let server = try await TunerProcess.serve(data: data, arguments: ["--files-root", root])
        for (name, type) in [("pipe.m3u", "FIFO"), ("link.m3u", "FIFO"), ("folder.m3u", "folder")] {
            let added = try await Self.call(
                curl, server.baseURL + "/api/v1/sources", method: "POST", json: #"{"location":"\#(root)/\#(name)"}"#)
            #expect(added.status == 400, "\(name): \(added.status) \(added.text)")
            #expect(added.text.contains(type), "\(name) is refused as a \(type): \(added.text)")
        }
        // A link to /dev/zero resolves outside the files root; a regular file inside it is fine.
        let zero = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST", json: #"{"location":"\#(root)/zero.m3u"}"#)
        #expect(zero.status == 403 || zero.status == 400, "\(zero.text)")
        let fine = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST", json: #"{"location":"\#(root)/fine.m3u"}"#)
        #expect(fine.status == 201, "\(fine.text)")
        await server.stop()

        // The command line trusts the user's paths, not their type.
        for (path, type) in [
            ("/dev/zero", "character device"), (root + "/zero.m3u", "character device"),
            (root + "/pipe.m3u", "FIFO"), (root + "/link.m3u", "FIFO"), (root + "/folder.m3u", "folder"),
        ] {
            let result = try await TunerProcess.run(
                ["sources", "add", path, "--no-refresh", "--data", data], timeout: .seconds(30))
            #expect(!result.succeeded && !result.timedOut, "\(path): \(result.transcript)")
            #expect(result.transcript.contains(type), "\(path) is refused as a \(type): \(result.transcript)")
        }
    }

    @Test("The server reads a source's local files only inside --files-root, checked again at each refresh")
    func serverRefreshesReadOnlyInsideTheFilesRoot() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let root = workspace.file("files")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let playlist = "#EXTM3U\n#EXTINF:-1,One\nhttp://127.0.0.1:9/1.ts\n"
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: workspace.file("outside.m3u")))
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: root + "/inside.m3u"))
        let data = workspace.file("data")
        // The command line trusts its user: both are stored, the second with a guide outside the root.
        for arguments in [
            [workspace.file("outside.m3u")], [root + "/inside.m3u", "--epg", "/etc/hostname"],
        ] {
            let added = try await TunerProcess.run(["sources", "add"] + arguments + ["--no-refresh", "--data", data])
            #expect(added.succeeded, "\(added.transcript)")
        }
        let server = try await TunerProcess.serve(data: data, arguments: ["--files-root", root])
        let outside = try await Self.call(curl, server.baseURL + "/api/v1/sources/1/refresh", method: "POST")
        #expect(outside.status == 403, "\(outside.text)")
        #expect(outside.text.contains("outside the folders Tuner may use"), "\(outside.text)")
        let failed = try await Self.source(curl, server, id: 1)
        #expect(failed["status"] as? String == "failed", "\(failed)")
        let inside = try await Self.call(curl, server.baseURL + "/api/v1/sources/2/refresh", method: "POST")
        #expect(inside.status == 200, "\(inside.text)")
        #expect((inside.body["counts"] as? [String: Any])?["live"] as? Int == 1, "\(inside.text)")
        #expect(
            (inside.body["guideError"] as? String ?? "").contains("outside the folders Tuner may use"),
            "the guide outside the root is not read: \(inside.text)")
        await server.stop()
    }

    @Test("An endless playlist or a huge local one fails with a clear error; the catalog keeps what it had")
    func importsAreBoundedInBytes() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        let root = workspace.file("files")
        for folder in [served, root] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        func playlist(_ count: Int) -> Data {
            Data(
                ("#EXTM3U\n" + (0..<count).map { "#EXTINF:-1,Channel \($0)\nhttp://127.0.0.1:9/\($0).ts\n" }.joined())
                    .utf8)
        }
        try playlist(2).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        try playlist(2).write(to: URL(fileURLWithPath: root + "/local.m3u"))
        origin.serveDirectory(served)
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--files-root", root, "--import-max-size", "1MiB"])
        var ids: [Int] = []
        for location in ["\(origin.baseURL)/static/list.m3u?chunked=1", root + "/local.m3u"] {
            let added = try await Self.call(
                curl, server.baseURL + "/api/v1/sources", method: "POST", json: #"{"location":"\#(location)"}"#)
            let id = try #require(added.body["id"] as? Int, "\(added.text)")
            let first = try await Self.call(curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST")
            #expect(first.status == 200, "\(first.text)")
            ids.append(id)
        }
        // Both grow past the limit: 3 MiB, sent chunked (no length to refuse up front), and on disk.
        try playlist(80_000).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        try playlist(80_000).write(to: URL(fileURLWithPath: root + "/local.m3u"))
        for id in ids {
            let refreshed = try await Self.call(
                curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST")
            #expect(refreshed.status >= 400, "\(refreshed.text)")
            #expect(
                refreshed.text.contains("is larger than --import-max-size (1 MiB); raise it if it is genuine"),
                "\(refreshed.text)")
            let source = try await Self.source(curl, server, id: id)
            #expect(source["status"] as? String == "failed")
            #expect((source["lastError"] as? String ?? "").contains("--import-max-size"), "\(source)")
        }
        let channels = try await Self.call(curl, server.baseURL + "/api/v1/channels")
        #expect(channels.body["total"] as? Int == 4, "the catalog keeps what it had: \(channels.text)")
        // The failed downloads are gone too.
        let imports = try FileManager.default.contentsOfDirectory(atPath: workspace.file("data") + "/imports")
        #expect(imports.isEmpty, "left after failed imports: \(imports)")
        await server.stop()
        try await origin.shutdown()
    }

    @Test("A download slower than --import-timeout fails clearly; a dead import's leftovers are swept at start")
    func importsAreBoundedInTime() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        let data = workspace.file("data")
        let imports = data + "/imports"
        for folder in [served, imports] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Data(
            ("#EXTM3U\n" + (0..<200).map { "#EXTINF:-1,Channel \($0)\nhttp://127.0.0.1:9/\($0).ts\n" }.joined()).utf8
        ).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        origin.serveDirectory(served)
        // What a killed server left an hour ago, and a file an import may still be writing.
        for (name, age) in [("catalog-dead.download", -3600.0), ("catalog-live.download", 3600.0)] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: imports + "/" + name))
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(age)], ofItemAtPath: imports + "/" + name)
        }
        let server = try await TunerProcess.serve(data: data, arguments: ["--import-timeout", "2"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: imports) == ["catalog-live.download"])
        try FileManager.default.removeItem(atPath: imports + "/catalog-live.download")

        // About 10 KiB at 200 bytes every 200 ms: some 10 s, five times the limit.
        let added = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST",
            json: #"{"location":"\#(origin.baseURL)/static/list.m3u?drip=200,200"}"#)
        let id = try #require(added.body["id"] as? Int, "\(added.text)")
        let refreshed = try await Self.call(curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST")
        #expect(refreshed.status >= 400, "\(refreshed.text)")
        #expect(
            refreshed.text.contains("took longer than --import-timeout; raise it if it is genuine"), "\(refreshed.text)"
        )
        #expect(origin.requests(path: "/static/list.m3u") == 1, "a download out of time is not tried again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: imports).isEmpty)
        await server.stop()
        try await origin.shutdown()
    }

    @Test("Refreshing a gzipped playlist twice leaves no download or inflated copy behind")
    func gzipRefreshesLeaveNoTemporaryFiles() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        let temporary = workspace.file("tmp")
        for folder in [served, temporary] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let plain = served + "/list.m3u"
        try Data(
            ("#EXTM3U\n" + (0..<50).map { "#EXTINF:-1,Channel \($0)\nhttp://127.0.0.1:9/\($0).ts\n" }.joined()).utf8
        ).write(to: URL(fileURLWithPath: plain))
        let gzip = try await Subprocess.run("/usr/bin/env", ["gzip", "-k", plain], timeout: .seconds(20))
        #expect(gzip.succeeded, "\(gzip.transcript)")
        origin.serveDirectory(served)
        let data = workspace.file("data")
        // TMPDIR too: the system's temporary folder is where downloads waited before.
        let server = try await TunerProcess.serve(data: data, environment: ["TMPDIR": temporary])
        let added = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST",
            json: #"{"location":"\#(origin.baseURL)/static/list.m3u.gz"}"#)
        let id = try #require(added.body["id"] as? Int, "\(added.text)")
        for _ in 0..<2 {
            let refreshed = try await Self.call(curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST")
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect((refreshed.body["counts"] as? [String: Any])?["live"] as? Int == 50, "\(refreshed.text)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("catalog-") }
        #expect(left.isEmpty, "left in TMPDIR: \(left)")
        let imports = try FileManager.default.contentsOfDirectory(atPath: data + "/imports")
        #expect(imports.isEmpty, "left in \(data)/imports: \(imports)")
        await server.stop()
        try await origin.shutdown()
    }

    @Test("An Xtream answer larger than --provider-answer-max-size fails clearly without being held")
    func xtreamAnswersAreCapped() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        // 64 MiB of live streams: held whole (and copied) it would add well over 100 MB.
        let entry = #"{"num":1,"name":"\#(String(repeating: "x", count: 900))","stream_id":1,"category_id":"1"},"#
        let count = (64 << 20) / entry.utf8.count
        let streams = "[" + String(repeating: entry, count: count) + #"{"num":2,"name":"end","stream_id":2}]"#
        let fake = try await XtreamFake.start(responses: ["get_live_streams": streams])
        let server = try await TunerProcess.serve(
            data: workspace.file("data"), arguments: ["--provider-answer-max-size", "8MiB"])
        let added = try await Self.call(
            curl, server.baseURL + "/api/v1/sources", method: "POST",
            json: #"{"location":"\#(fake.baseURL)","username":"user","password":"pass"}"#)
        let id = try #require(added.body["id"] as? Int, "\(added.text)")
        let before = Self.residentKiB(pid: server.pid, field: "VmRSS:")
        let refreshed = try await Self.call(curl, server.baseURL + "/api/v1/sources/\(id)/refresh", method: "POST")
        let peak = Self.residentKiB(pid: server.pid, field: "VmHWM:")
        #expect(refreshed.status >= 400, "\(refreshed.text)")
        #expect(
            refreshed.text.contains("larger than --provider-answer-max-size (8 MiB); raise it if it is genuine"),
            "\(refreshed.text)")
        #expect(!refreshed.text.contains("pass"), "no password in the error")
        // The peak stays far below the answer's 64 MiB (a little over the 8 MiB cap is allowed).
        #expect(peak - before < 40 << 10, "RSS grew from \(before) KiB to a peak of \(peak) KiB")
        await server.stop()
        try await fake.shutdown()
    }

    /// A line of `/proc/<pid>/status` in KiB (0 where there is no /proc).
    static func residentKiB(pid: Int32, field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
