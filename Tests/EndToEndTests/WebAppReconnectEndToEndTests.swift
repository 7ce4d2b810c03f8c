import Foundation
import Testing
import TunerTesting

/// The web app across a restart of `tuner serve`: the Downloads page's connection indicator goes
/// offline when the server stops (SIGTERM), comes back to live when it listens again on the same
/// port, and the page catches up (a download added meanwhile appears and reaches 100 %) without a
/// reload. The browser steps and the test hand over through marker files.
@Suite(.serialized) struct WebAppReconnectEndToEndTests {
    /// Waits until `path` exists; false when `browser` ended first or two minutes passed.
    static func waitFor(_ path: String, while browser: Task<CommandResult, any Error>) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        browser.cancel()
        return false
    }

    @Test("Downloads reconnects after the server restarts and catches up without a reload")
    func reconnectsAfterARestart() async throws {
        guard let tools = Tools.require(.curl, .chromium, .chromedriver) else { return }
        let workspace = try Workspace()
        let marks = workspace.file("marks")
        try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
        let files = try await TestOrigin.start()
        let data = workspace.file("data")
        let first = try await TunerProcess.serve(data: data, arguments: ["--allow-fetch", "loopback"])
        let base = first.baseURL
        let browser = Task {
            try await HeadlessChromium.run(
                steps: Self.steps, arguments: [base, marks], chromium: tools[.chromium],
                chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "web-app"),
                timeout: .seconds(240))
        }
        var second: TunerProcess?
        if try await Self.waitFor(marks + "/ready", while: browser) {
            let stopped = await first.stop()
            #expect(!stopped.timedOut, "tuner serve did not stop on SIGTERM")
            if try await Self.waitFor(marks + "/offline", while: browser) {
                // The same data folder and port: the page's reconnects find it there.
                second = try await TunerProcess.serve(
                    data: data, arguments: ["--allow-fetch", "loopback", "--port", String(first.port)])
                #expect(second?.baseURL == base)
                let added = try await Curl.fetch(
                    tools[.curl], base + "/api/v1/transfers",
                    options: [
                        "-X", "POST", "-H", "Content-Type: application/json", "--data",
                        #"{"url":"\#(files.baseURL)/files/after-restart.bin?size=3145728&drip=262144,40"}"#,
                    ])
                #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            }
        }
        let result = try await browser.value
        let values = HeadlessChromium.results(of: result)
        // What the server holds, to tell a download that did not finish from a page that missed it.
        let listing = second == nil ? nil : try? await Curl.fetch(tools[.curl], base + "/api/v1/transfers")
        #expect(
            result.succeeded,
            """
            \(result.transcript)
            \(second?.log.suffix(2000) ?? first.log.suffix(2000))
            transfers: \(listing.map { String(decoding: $0.body.prefix(2000), as: UTF8.self) } ?? "-")
            """)
        #expect(values["done"] as? Bool == true, "\(result.transcript)")
        #expect(values["offline"] as? String == "reconnecting", "\(values)")
        if let second { _ = await second.stop() }
        try? await files.shutdown()
        workspace.remove()
    }

    /// args: the server's base URL and the folder of marker files.
    static let steps = #"""
        base, marks = args[0], args[1]

        def mark(name):
            open(os.path.join(marks, name), "w").close()

        driver.get(base + "/downloads")
        wait_for("return document.getElementById('connection').dataset.state === 'live'")
        # Anything the page keeps in memory: a reload would lose it.
        js("window.sameDocument = true")
        js("""window.barValues = [];
            new MutationObserver(() => document.querySelectorAll('#transfers progress')
              .forEach(b => window.barValues.push(b.value)))
              .observe(document.getElementById('transfers'), {childList: true, subtree: true});""")
        mark("ready")
        wait_for("return document.getElementById('connection').dataset.state !== 'live'", 60)
        offline = js("return document.getElementById('connection').dataset.state")
        label = js("return document.querySelector('#connection .label').textContent")
        check(label == offline, "the indicator says " + repr(label))
        screenshot("downloads-reconnecting")
        mark("offline")
        wait_for("return document.getElementById('connection').dataset.state === 'live'", 120)
        wait_for("return document.querySelector('#transfers li[data-state=complete] progress')?.value === 1", 120)
        check(js("return document.querySelector('#transfers li .name').textContent") == "after-restart.bin", "the new download")
        check(js("return window.sameDocument === true"), "the page was reloaded")
        check(1 in js("return window.barValues"), "the bar never showed 100 %")
        screenshot("downloads-reconnected")
        report(done=True, offline=offline)
        """#
}
