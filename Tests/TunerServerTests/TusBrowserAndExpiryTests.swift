import Foundation
import Testing
import TunerApp
import TunerServer
import TunerTesting

/// Tuner's tus endpoint for web pages on other origins (CORS, as tus-js-client needs it), and the
/// tus `expiration` extension: unfinished uploads expire and a sweep removes them.
@Suite("Tus CORS and expiration")
struct TusBrowserAndExpiryTests {
    static let page = "http://page.example:3000"
    static let allowedHeaders = [
        "Authorization", "Origin", "X-Requested-With", "X-Request-ID", "X-HTTP-Method-Override", "Content-Type",
        "Upload-Length",
        "Upload-Offset", "Tus-Resumable", "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat", "Upload-Checksum",
    ]
    static let exposedHeaders = [
        "Upload-Offset", "Location", "Upload-Length", "Tus-Version", "Tus-Resumable", "Tus-Max-Size", "Tus-Extension",
        "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat", "Upload-Expires", "Upload-Checksum",
    ]

    static func names(_ value: String?) -> Set<String> {
        Set((value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }

    /// The CORS headers every answer to `origin` must carry.
    static func expectCORS(
        _ answer: Fetched, origin: String = page, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.header("Access-Control-Allow-Origin") == origin, "\(what)", sourceLocation: sourceLocation)
        #expect(
            names(answer.header("Access-Control-Expose-Headers")) == Set(exposedHeaders.map { $0.lowercased() }),
            "\(what)",
            sourceLocation: sourceLocation)
        #expect(answer.header("Access-Control-Max-Age") == "86400", "\(what)", sourceLocation: sourceLocation)
        #expect(answer.header("Vary")?.contains("Origin") == true, "\(what)", sourceLocation: sourceLocation)
    }

    /// An RFC 7231 IMF-fixdate, as `Upload-Expires` must be.
    static func httpDate(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }

    @Test(
        """
        A preflight gets the tus capabilities and CORS headers; every answer to a cross-origin request carries \
        them, errors too
        """
    )
    func preflightAndAnswers() async throws {
        let harness = try await ProxyHarness.start {
            $0.uploadMaxSize = 10 << 20
            $0.uploadAllowedOrigins = [Self.page]
        }
        let endpoint = harness.api + "/uploads"
        let preflight = try await Upload.request(
            endpoint, method: "OPTIONS",
            headers: [
                "Origin": Self.page, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "tus-resumable,upload-length,upload-metadata",
            ], tus: false)
        #expect(preflight.status == 204)
        Self.expectCORS(preflight, "preflight")
        #expect(preflight.header("Access-Control-Allow-Methods") == "POST, GET, HEAD, PATCH, DELETE, OPTIONS")
        #expect(
            Self.names(preflight.header("Access-Control-Allow-Headers"))
                == Set(Self.allowedHeaders.map { $0.lowercased() }))
        #expect(preflight.header("Tus-Resumable") == "1.0.0")
        #expect(preflight.header("Tus-Version") == "1.0.0")
        #expect(preflight.header("Tus-Max-Size") == String(10 << 20))
        #expect(
            Self.names(preflight.header("Tus-Extension")).isSuperset(of: [
                "creation", "termination", "checksum", "expiration",
            ]))

        // Creation, PATCH and HEAD: CORS headers, and Upload-Expires about a day ahead (the default).
        let created = try await Upload.request(
            endpoint, method: "POST", headers: ["Origin": Self.page, "Upload-Length": "100"])
        #expect(created.status == 201)
        Self.expectCORS(created, "creation")
        let url = try #require(created.header("Location"))
        let expires = try #require(
            Self.httpDate(created.header("Upload-Expires")),
            "Upload-Expires: \(created.header("Upload-Expires") ?? "none")")
        #expect(expires > Date().addingTimeInterval(23 * 3600) && expires < Date().addingTimeInterval(25 * 3600))
        let uploadPreflight = try await Upload.request(
            url, method: "OPTIONS", headers: ["Origin": Self.page, "Access-Control-Request-Method": "PATCH"], tus: false
        )
        #expect(uploadPreflight.status == 204)
        Self.expectCORS(uploadPreflight, "preflight of an upload URL")
        let patched = try await Upload.request(
            url, method: "PATCH",
            headers: [
                "Origin": Self.page, "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream",
            ], body: Upload.bytes(40))
        #expect(patched.status == 204 && patched.header("Upload-Offset") == "40")
        Self.expectCORS(patched, "PATCH")
        #expect(Self.httpDate(patched.header("Upload-Expires")) != nil)
        let head = try await Upload.request(url, method: "HEAD", headers: ["Origin": Self.page])
        #expect(head.status == 200 && head.header("Upload-Offset") == "40")
        Self.expectCORS(head, "HEAD")
        #expect(Self.httpDate(head.header("Upload-Expires")) != nil)

        // Refusals keep the headers, so the page can read why.
        let unknown = try await Upload.request(
            endpoint + "/AAAAAAAAAAAAAAAAAAAAAA", method: "HEAD", headers: ["Origin": Self.page])
        #expect(unknown.status == 404)
        Self.expectCORS(unknown, "404")
        let wrongOffset = try await Upload.request(
            url, method: "PATCH",
            headers: [
                "Origin": Self.page, "Upload-Offset": "3", "Content-Type": "application/offset+octet-stream",
            ], body: Upload.bytes(1))
        #expect(wrongOffset.status == 409)
        Self.expectCORS(wrongOffset, "409")

        // Without an Origin (curl, tuspy, Tuner's own client) nothing changes.
        let plain = try await Upload.request(url, method: "HEAD")
        #expect(plain.status == 200 && plain.header("Access-Control-Allow-Origin") == nil)
        // Other routes get no CORS headers from this middleware.
        let other = try await HTTP.fetch(harness.api + "/health", headers: ["Origin": Self.page])
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        try await harness.stop()
    }

    @Test("Only the configured origins are allowed; beyond loopback the preflight needs no token and a 401 is readable")
    func originsAndToken() async throws {
        let harness = try await ProxyHarness.start { configuration in
            configuration.host = "0.0.0.0"
            configuration.accessToken = "let-me-upload-7c41e9b2d05a4f38b6"
            configuration.uploadAllowedOrigins = ["https://app.example"]
        }
        let endpoint = harness.api + "/uploads"
        let good = try await Upload.request(
            endpoint, method: "OPTIONS",
            headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"], tus: false)
        #expect(good.status == 204)
        Self.expectCORS(good, origin: "https://app.example", "allowed origin, no token")
        #expect(good.header("Tus-Version") == "1.0.0")

        let evil = try await Upload.request(
            endpoint, method: "OPTIONS",
            headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"], tus: false)
        #expect(evil.header("Access-Control-Allow-Origin") == nil, "an origin not listed gets no CORS headers")

        let noToken = try await Upload.request(
            endpoint, method: "POST", headers: ["Origin": "https://app.example", "Upload-Length": "10"])
        #expect(noToken.status == 401)
        Self.expectCORS(noToken, origin: "https://app.example", "401")
        let withToken = try await Upload.request(
            endpoint, method: "POST",
            headers: [
                "Origin": "https://app.example", "Upload-Length": "10",
                "Authorization": "Bearer let-me-upload-7c41e9b2d05a4f38b6",
            ])
        #expect(withToken.status == 201)
        Self.expectCORS(withToken, origin: "https://app.example", "creation with the token")
        try await harness.stop()
    }

    @Test("An unfinished upload expires: gone (404) with its files after the sweep, while a finished one stays")
    func expiredUploadsAreSwept() async throws {
        let harness = try await ProxyHarness.start { $0.uploadExpirySeconds = 0.5 }
        let endpoint = harness.api + "/uploads"
        let uploads = harness.dataDirectory + "/uploads"
        // Each upload is made by one request (creation-with-upload), so no step can be late for
        // the expiry.
        let created = try await Upload.request(
            endpoint, method: "POST",
            headers: [
                "Upload-Length": "100", "Content-Type": "application/offset+octet-stream",
            ], body: Upload.bytes(10))
        #expect(created.status == 201 && created.header("Upload-Offset") == "10")
        #expect(Self.httpDate(created.header("Upload-Expires")) != nil)
        let unfinished = try #require(created.header("Location"))
        let finished = try await Upload.request(
            endpoint, method: "POST",
            headers: [
                "Upload-Length": "5", "Content-Type": "application/offset+octet-stream",
            ], body: Upload.bytes(5))
        let finishedURL = try #require(finished.header("Location"))
        #expect(finished.header("Upload-Offset") == "5")
        #expect(finished.header("Upload-Expires") == nil, "a finished upload does not expire")
        let id = String(unfinished.split(separator: "/").last!)
        let finishedID = String(finishedURL.split(separator: "/").last!)

        // Wait for the effect: expired answers 410 until the sweep removes it, then 404.
        var statuses: [Int] = []
        for _ in 0..<400 {
            let status = try await Upload.request(unfinished, method: "HEAD").status
            if statuses.last != status { statuses.append(status) }
            if status == 404 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(statuses.last == 404, "\(statuses)")
        #expect(Set(statuses).isSubset(of: [200, 410, 404]), "\(statuses)")
        #expect(!FileManager.default.fileExists(atPath: "\(uploads)/\(id).part"), "the bytes are deleted")
        #expect(!FileManager.default.fileExists(atPath: "\(uploads)/\(id).info"), "and the record")
        let patchAfter = try await Upload.request(
            unfinished, method: "PATCH",
            headers: [
                "Upload-Offset": "10", "Content-Type": "application/offset+octet-stream",
            ], body: Upload.bytes(10))
        #expect(patchAfter.status == 404)

        #expect(try await Upload.request(finishedURL, method: "HEAD").status == 200)
        #expect(FileManager.default.fileExists(atPath: "\(uploads)/\(finishedID)"))
        try await harness.stop()
    }

    // MARK: Browser

    /// Headless Chromium on a page from another origin (the harness's test origin) creates an
    /// upload, PATCHes it in two pieces and reads Location, Upload-Offset and Upload-Expires, the
    /// requests and headers tus-js-client uses; without CORS the browser would refuse all of it.
    @Test func chromiumUploadsFromAnotherOrigin() async throws {
        guard let browser = await Browser.require() else { return }
        // Cross-origin uploads are off by default; the user allows pages with --upload-origin.
        let harness = try await ProxyHarness.start { $0.uploadAllowedOrigins = ["*"] }
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-tus-page-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: site) }
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Self.uploadPage.write(toFile: site + "/upload.html", atomically: true, encoding: .utf8)
        try Self.browserScript.write(toFile: site + "/upload.py", atomically: true, encoding: .utf8)
        harness.origin.serveDirectory(site)

        let result = try await ExternalCommand.run(
            "python3",
            [
                site + "/upload.py", harness.origin.baseURL + "/static/upload.html", harness.api + "/uploads",
                browser.chromium, browser.chromedriver,
            ],
            timeout: .seconds(150))
        #expect(result.succeeded, "\(result.transcript)")
        let report = result.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any], "\(result.transcript)")
        #expect(json["error"] == nil, "\(json)")
        #expect(json["created"] as? Int == 201, "\(json)")
        let location = try #require(json["location"] as? String, "Location is exposed: \(json)")
        #expect(location.hasPrefix(harness.api + "/uploads/"))
        #expect(json["offset"] as? Int == 100_000, "\(json)")
        #expect(json["headOffset"] as? String == "100000", "\(json)")
        #expect(json["expires"] is String, "Upload-Expires is exposed: \(json)")
        let expected = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let stored = FileManager.default.contents(
            atPath: harness.dataDirectory + "/uploads/" + (location.split(separator: "/").last.map(String.init) ?? ""))
        #expect(stored.map { Upload.sha256($0) } == Upload.sha256(expected), "the stored file is byte-identical")
        try await harness.stop()
    }

    static let uploadPage = """
        <!doctype html>
        <html><body><script>
        async function tusUpload(endpoint) {
          const data = new Uint8Array(100000);
          for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 255;
          const tus = {'Tus-Resumable': '1.0.0'};
          const created = await fetch(endpoint, {method: 'POST', headers: {...tus,
            'Upload-Length': String(data.length), 'Upload-Metadata': 'filename ' + btoa('browser.bin')}});
          const location = created.headers.get('Location');
          const expires = created.headers.get('Upload-Expires');
          let offset = 0;
          while (offset < data.length) {
            const answer = await fetch(location, {method: 'PATCH', headers: {...tus,
              'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream'},
              body: data.slice(offset, offset + 60000)});
            if (answer.status !== 204) throw new Error('PATCH answered ' + answer.status);
            offset = Number(answer.headers.get('Upload-Offset'));
          }
          const head = await fetch(location, {method: 'HEAD', headers: tus});
          return {created: created.status, location, expires, offset, headOffset: head.headers.get('Upload-Offset')};
        }
        </script></body></html>
        """

    /// Loads the page and runs its upload; prints one line of JSON (the result or the error).
    static let browserScript = #"""
        import json, sys
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        page, endpoint, binary, driver_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        try:
            driver.set_page_load_timeout(60)
            driver.set_script_timeout(60)
            driver.get(page)
            result = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                tusUpload(arguments[0]).then(done, error => done({error: String(error)}));
            """, endpoint)
            print(json.dumps(result))
        finally:
            driver.quit()
        """#
}

/// Chromium and chromedriver for the browser test, and python3 with Selenium to drive them.
private struct Browser {
    let chromium: String
    let chromedriver: String

    /// The tools, or nil after failing the test (CI=true) or printing why it is skipped.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) async -> Browser? {
        var missing: [String] = []
        let chromium = ExternalCommand.path(of: "chromium")
        let driver = ExternalCommand.path(of: "chromedriver")
        if chromium == nil { missing.append("chromium (apt-get install chromium)") }
        if driver == nil { missing.append("chromedriver (apt-get install chromium-driver)") }
        if let python = ExternalCommand.path(of: "python3") {
            let probe = try? await ExternalCommand.run(python, ["-c", "import selenium"])
            if probe?.succeeded != true { missing.append("the python3 module selenium (pip install selenium)") }
        } else {
            missing.append("python3")
        }
        guard missing.isEmpty, let chromium, let driver else {
            let message = "missing: " + missing.joined(separator: "; ")
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            } else {
                print("skipped: \(message)")
            }
            return nil
        }
        return Browser(chromium: chromium, chromedriver: driver)
    }
}
