import Foundation
import Testing
import TunerTesting

/// Backups through the real `tuner serve`, `tuner backup`, `tuner restore`, curl, Python's
/// `tarfile` and headless Chromium: a backup taken while downloads and a playlist import run
/// restores into a fresh data folder whose server answers as the first did (sources, channels,
/// favourites, output profiles, Xtream logins, API keys, transfers, and proxy links signed by the
/// first); a restore beside a running server, a truncated backup and a newer Tuner's backup are
/// refused with their reasons; the files hold secrets, so they are the owner's alone (mode 0600,
/// admin-only in the API and the web app) and never served.
@Suite(.serialized) struct BackupEndToEndTests {
    @Test("a backup taken while downloads and an import run restores into a fresh folder that answers the same")
    func backupAndRestore() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        func playlist(_ count: Int, _ prefix: String) -> Data {
            Data(
                ("#EXTM3U\n"
                    + (0..<count).map {
                        "#EXTINF:-1 tvg-id=\"\(prefix)\($0).tv\" group-title=\"G\($0 % 5)\",\(prefix) Channel \($0)\n"
                            + "http://127.0.0.1:9/\(prefix)/\($0).ts\n"
                    }.joined()).utf8)
        }
        try playlist(300, "One").write(to: URL(fileURLWithPath: served + "/one.m3u"))
        try playlist(3000, "Slow").write(to: URL(fileURLWithPath: served + "/slow.m3u"))
        origin.serveDirectory(served)

        let dataA = workspace.file("a")
        let first = try await TunerProcess.serve(data: dataA, arguments: ["--allow-fetch", "loopback"])
        func call(_ server: TunerProcess, _ method: String, _ path: String, _ body: String? = nil) async throws
            -> (status: Int, text: String)
        {
            var options = ["-X", method]
            if let body { options += ["-H", "Content-Type: application/json", "--data", body] }
            let answer = try await Curl.fetch(curl, server.baseURL + path, options: options)
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }
        func object(_ text: String) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        }

        // The state: a source and its channels, a favourite, a profile, an Xtream login, an API key.
        #expect(
            try await call(first, "POST", "/api/v1/sources", #"{"location":"\#(origin.baseURL)/static/one.m3u"}"#)
                .status == 201)
        #expect(try await call(first, "POST", "/api/v1/sources/1/refresh").status == 200)
        let channels = object(try await call(first, "GET", "/api/v1/channels?source=1&limit=500").text)
        let channelIDs = (channels["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
        #expect(channelIDs.count == 300)
        let favourite = try #require(channelIDs.dropFirst(7).first)
        #expect(try await call(first, "PUT", "/api/v1/favourites/\(favourite)", "{}").status == 200)
        let profile = try await call(
            first, "POST", "/api/v1/outputs", #"{"id":"kitchen","name":"Kitchen","groups":["G1"]}"#)
        #expect(profile.status == 201, "\(profile.text)")
        let login = "xtream-pass-7f3a9c"
        #expect(
            try await call(first, "POST", "/api/v1/users", #"{"username":"tv","password":"\#(login)"}"#).status == 201)
        let key = object(try await call(first, "POST", "/api/v1/keys", #"{"name":"phone","scope":"read"}"#).text)
        let keySecret = try #require(key["secret"] as? String)
        let minted = object(
            try await call(
                first, "POST", "/api/v1/proxy-urls", #"{"url":"\#(origin.baseURL)/files/signed.bin?size=4000"}"#
            )
            .text)
        let proxied = try #require((minted["proxyURL"] as? String).flatMap { URL(string: $0) })

        // Running while the backup is taken: two slow downloads and the import of a slow playlist.
        for name in ["d1", "d2"] {
            let added = try await call(
                first, "POST", "/api/v1/transfers",
                #"{"url":"\#(origin.baseURL)/files/\#(name).bin?size=40000000&drip=65536,100"}"#)
            #expect(added.status == 201, "\(added.text)")
        }
        #expect(
            try await call(
                first, "POST", "/api/v1/sources", #"{"location":"\#(origin.baseURL)/static/slow.m3u?drip=1024,100"}"#
            )
            .status == 201)
        let slowRefresh = Task { try await call(first, "POST", "/api/v1/sources/2/refresh") }
        var running = false
        for _ in 0..<300 where !running {
            let transfers =
                object(try await call(first, "GET", "/api/v1/transfers").text)["transfers"] as? [[String: Any]] ?? []
            let sources =
                object(try await call(first, "GET", "/api/v1/sources").text)["sources"] as? [[String: Any]] ?? []
            running =
                transfers.filter {
                    (($0["progress"] as? [String: Any])?["bytes"] as? Int ?? 0) > 0
                        && $0["state"] as? String == "active"
                }.count == 2
                && sources.contains { $0["id"] as? Int == 2 && $0["status"] as? String == "refreshing" }
            if !running { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(running, "the downloads and the import were not running")

        let paths = [
            "/api/v1/sources", "/api/v1/channels?source=1&limit=500", "/api/v1/favourites", "/api/v1/outputs",
            "/api/v1/users", "/api/v1/keys",
        ]
        var before: [String: String] = [:]
        for path in paths { before[path] = try await call(first, "GET", path).text }
        let transfersBefore =
            object(try await call(first, "GET", "/api/v1/transfers").text)["transfers"] as? [[String: Any]] ?? []

        // The web app's button and the CLI, both while the server runs.
        let made = try await call(first, "POST", "/api/v1/backups")
        #expect(made.status == 201, "\(made.text)")
        // The import (290 kB at 10 kB/s) was still running when the backup was written.
        let afterwards =
            object(try await call(first, "GET", "/api/v1/sources").text)["sources"] as? [[String: Any]] ?? []
        #expect(afterwards.contains { $0["id"] as? Int == 2 && $0["status"] as? String == "refreshing" })
        let name = try #require(object(made.text)["name"] as? String)
        let backup = dataA + "/backups/" + name
        let cli = try await TunerProcess.run(
            ["backup", "--data", dataA, workspace.file("cli.tar")], timeout: .seconds(120))
        #expect(cli.succeeded, "\(cli.transcript)")
        #expect(try await call(first, "GET", "/api/v1/health").status == 200)
        let listed = try await call(first, "GET", "/api/v1/backups")
        #expect(listed.text.contains(name))
        for file in [backup, workspace.file("cli.tar")] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file) may be read by others")
        }
        // Never served, and no answer carries a secret.
        #expect(try await call(first, "GET", "/api/v1/backups/" + name).status == 404)
        for text in [made.text, listed.text] {
            #expect(!text.contains(login) && !text.contains(keySecret))
        }
        _ = try? await slowRefresh.value
        _ = await first.stop()
        for secret in [login, keySecret] { #expect(!first.log.contains(secret), "a secret in the log") }

        // A fresh folder: restored, then served; every answer as before (the address aside).
        let dataB = workspace.file("b")
        try await restore(backup, into: dataB)
        let second = try await TunerProcess.serve(data: dataB, arguments: ["--allow-fetch", "loopback"])
        for path in paths {
            let expected = try #require(before[path]).replacingOccurrences(of: first.baseURL, with: second.baseURL)
            var got = try await call(second, "GET", path).text
            if path == "/api/v1/sources" {
                // The slow import was cut by the backup's snapshot: it is reported failed now.
                got = Self.withoutSource(2, got)
                #expect(Self.withoutSource(2, expected) == got, "\(path) differs")
            } else {
                #expect(got == expected, "\(path) differs:\n\(got.prefix(400))\n\(expected.prefix(400))")
            }
        }
        let transfersAfter =
            object(try await call(second, "GET", "/api/v1/transfers").text)["transfers"] as? [[String: Any]] ?? []
        #expect(
            Set(transfersAfter.compactMap { "\($0["id"] ?? "") \($0["sourceURL"] ?? "")" })
                == Set(transfersBefore.compactMap { "\($0["id"] ?? "") \($0["sourceURL"] ?? "")" }))
        #expect(transfersBefore.count == 2)
        // The signing key came back: a link the first server signed plays from the second.
        let played = try await Curl.fetch(curl, second.baseURL + proxied.path + (proxied.query.map { "?" + $0 } ?? ""))
        #expect(played.status == 200 && played.body.count == 4000, "status \(played.status)")
        // The key made on the first server signs in on the second.
        #expect(
            try await Curl.fetch(
                curl, second.baseURL + "/api/v1/session",
                options: ["-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"key":"\#(keySecret)"}"#]
            ).status == 200)

        // Refusals: beside a running server; truncated; a newer Tuner's. Nothing changes.
        let beside = try await Subprocess.run(TunerProcess.binary, ["restore", "--data", dataB, "--replace", backup])
        #expect(!beside.succeeded && beside.errorOutput.contains("tuner serve is running"), "\(beside.transcript)")
        _ = await second.stop()
        let whole = try Data(contentsOf: URL(fileURLWithPath: backup))
        let truncated = workspace.file("truncated.tar")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        let dataC = workspace.file("c")
        let cut = try await Subprocess.run(TunerProcess.binary, ["restore", "--data", dataC, truncated])
        #expect(!cut.succeeded && cut.errorOutput.contains("truncated"), "\(cut.transcript)")
        let newer = workspace.file("newer.tar")
        let rewritten = try await ExternalCommand.run(
            "python3", ["-c", Self.newerBackup, backup, newer], timeout: .seconds(60))
        #expect(rewritten.succeeded, "\(rewritten.transcript)")
        let refused = try await Subprocess.run(TunerProcess.binary, ["restore", "--data", dataC, newer])
        #expect(!refused.succeeded && refused.errorOutput.contains("newer Tuner"), "\(refused.transcript)")
        #expect(!FileManager.default.fileExists(atPath: dataC + "/tuner.sqlite"), "a refused restore left a state")
        // Python's tar reads the backup, and its checksums are the manifest's.
        let checked = try await ExternalCommand.run("python3", ["-c", Self.verify, backup], timeout: .seconds(60))
        #expect(checked.succeeded && checked.output.contains("ok"), "\(checked.transcript)")
        try await origin.shutdown()
    }

    @Test("Settings: the owner writes a backup with a button and sees it listed; a read key sees neither")
    func settingsButton() async throws {
        guard let tools = Tools.require(.curl, .chromium, .chromedriver) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let token = "backup-test-token-6d1f0a9c3e7b2f58a4c6"
        let (server, read) = try await ScopedPagesEndToEndTests.serve(data: data, keyScope: "read", token: token)
        let result = try await HeadlessChromium.run(
            steps: ScopedPagesEndToEndTests.signInSteps + "\n" + Self.settingsSteps,
            arguments: [server.baseURL, token, read], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "backups"))
        #expect(result.succeeded, "\(result.transcript)")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: data + "/backups")) ?? []
        #expect(files.filter { $0.hasSuffix(".tar") }.count == 1, "\(files)")
        // A read key gets 403 from the API as well.
        let refused = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/backups", options: ["-H", "Authorization: Bearer \(read)"])
        #expect(refused.status == 403)
        _ = await server.stop()
        #expect(!server.log.contains(token) && !server.log.contains(read), "a secret in the log")
    }

    static let settingsSteps = #"""
        base, token, read = args[0], args[1], args[2]
        sign_in(token)
        check(js("return document.querySelectorAll('#backup-list tbody tr').length") == 0, "a backup before any")
        check("None scheduled" in js("return document.getElementById('backup-schedule').textContent"), "a schedule")
        # Keyboard: the button takes the focus and Enter presses it.
        button = driver.find_element(By.ID, "backup-now")
        button.send_keys(Keys.ENTER)
        wait_for("return document.getElementById('backup-status').textContent.startsWith('Backup written')", 60)
        wait_for("return document.querySelectorAll('#backup-list tbody tr').length === 1", 20)
        name = js("return document.querySelector('#backup-list tbody td').textContent")
        check(name.startswith("tuner-backup-") and name.endswith(".tar"), "listed: " + name)
        js("document.getElementById('backups-heading').scrollIntoView()")
        screenshot("settings-backups")
        driver.find_element(By.CSS_SELECTOR, "[data-sign-out]").click()
        wait_for("return document.body.dataset.page === 'sign-in'", 20)
        sign_in(read)
        check(js("return document.getElementById('backup-now') === null"), "a read key sees the backup button")
        check("tuner-backup-" not in driver.page_source, "a read key sees the backups")
        status = js("return fetch('/api/v1/backups', {method: 'POST'}).then(r => r.status)")
        check(status == 403, "a read key wrote a backup: %s" % status)
        screenshot("settings-read-key")
        report(done=True)
        """#

    /// Restores `backup` into `folder` as a user would: `tuner restore`; in the PostgreSQL pass
    /// into the folder's SQLite file, then copied into its PostgreSQL database with
    /// `tuner database migrate`, as the README says.
    func restore(_ backup: String, into folder: String) async throws {
        let restored = try await Subprocess.run(
            TunerProcess.binary, ["restore", "--data", folder, backup], timeout: .seconds(120))
        #expect(restored.succeeded, "\(restored.transcript)")
        guard EndToEndDatabase.isPostgres else { return }
        let target = try await EndToEndDatabase.url(forDataFolder: folder)
        let copied = try await Subprocess.run(
            TunerProcess.binary, ["database", "migrate", "--data", folder, "--to", target], timeout: .seconds(120))
        #expect(copied.succeeded, "\(copied.transcript)")
    }

    /// A sources answer without source `id`.
    static func withoutSource(_ id: Int, _ text: String) -> String {
        guard var object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let sources = object["sources"] as? [[String: Any]]
        else { return text }
        object["sources"] = sources.filter { $0["id"] as? Int != id }
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Rewrites a backup as a later Tuner would write it (a migration unknown here), with Python's
    /// tarfile, checksums kept right.
    static let newerBackup = #"""
        import hashlib, io, json, sys, tarfile
        source, target = sys.argv[1], sys.argv[2]
        with tarfile.open(source) as old, tarfile.open(target, "w", format=tarfile.USTAR_FORMAT) as new:
            for member in old.getmembers():
                data = old.extractfile(member).read()
                if member.name == "manifest.json":
                    manifest = json.loads(data)
                    manifest["migrations"].append("catalog-v99-from-a-later-tuner")
                    data = json.dumps(manifest).encode()
                info = tarfile.TarInfo(member.name)
                info.size = len(data)
                info.mode = 0o600
                new.addfile(info, io.BytesIO(data))
        """#

    /// Reads a backup with Python's tarfile and checks each file against the manifest.
    static let verify = #"""
        import hashlib, json, sys, tarfile
        with tarfile.open(sys.argv[1]) as archive:
            names = archive.getnames()
            assert names[-1] == "manifest.json", names
            manifest = json.loads(archive.extractfile("manifest.json").read())
            assert manifest["format"] == "tuner-backup", manifest
            for entry in manifest["files"]:
                data = archive.extractfile(entry["name"]).read()
                assert len(data) == entry["size"] and hashlib.sha256(data).hexdigest() == entry["sha256"], entry["name"]
            assert [e["name"] for e in manifest["files"]] == names[:-1]
        print("ok")
        """#
}
