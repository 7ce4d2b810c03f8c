import Crypto
import Foundation
import Testing
import TunerTesting

/// The Uploads page in real Chromium against the real `tuner serve`: a tus upload from the browser
/// that a page reload interrupts, resumed from the server's offset when the same file is picked
/// again, ending with exactly the file's bytes on the server; pause, resume and cancel (tus
/// termination) with the keyboard.
@Suite(.serialized) struct WebUploadsEndToEndTests {
    @Test("a tus upload from the browser survives a page reload and arrives byte for byte; pause, resume, cancel")
    func uploadSurvivesAReload() async throws {
        guard let tools = Tools.require(.chromium, .chromedriver) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        // Random bytes, so a chunk sent twice or out of place would change the digest.
        var generator = SystemRandomNumberGenerator()
        let size = 8 << 20
        let bytes = (0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
        let file = workspace.file("holiday film.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let other = workspace.file("cancel me.bin")
        try Data(bytes.prefix(4 << 20)).write(to: URL(fileURLWithPath: other))
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        defer { Task { _ = await server.stop() } }
        let result = try await HeadlessChromium.run(
            steps: Self.steps, arguments: [server.baseURL, file, String(size), other],
            chromium: tools[.chromium], chromedriver: tools[.chromedriver],
            screenshots: HeadlessChromium.screenshotFolder(suite: "web-app"), timeout: .seconds(240))
        let values = HeadlessChromium.results(of: result)
        #expect(result.succeeded, "\(result.transcript)\n\(server.log.suffix(3000))")
        let resumed = values["resumed"] as? Int ?? 0
        #expect(resumed > 0 && resumed < size, "the upload resumed from \(resumed)")
        let url = try #require(values["url"] as? String, "\(result.transcript)")
        let id = try #require(url.split(separator: "/").last.map(String.init))
        let uploaded = try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/uploads/" + id))
        #expect(uploaded.count == size)
        #expect(SHA256.hash(data: uploaded) == SHA256.hash(data: Data(bytes)), "the server holds other bytes")
    }

    /// args: the server's base URL, the file to upload, its size, and a file to cancel.
    static let steps = #"""
        base, path, size, other = args[0], args[1], int(args[2]), args[3]

        def press(*keys):
            chain = ActionChains(driver)
            for key in keys:
                chain = chain.send_keys(key)
            chain.perform()

        def slow_patches():
            # The test's own shaping: each PATCH waits a moment, so the reload lands mid-upload. The
            # page's code is unchanged; it calls window.fetch.
            js("""document.getElementById('upload-form').dataset.chunk = String(512 * 1024);
                const real = window.fetch;
                window.fetch = (input, init) => (init && init.method === 'PATCH'
                  ? new Promise(r => setTimeout(r, 150)).then(() => real(input, init)) : real(input, init));""")

        def pick(file):
            driver.find_element(By.ID, "upload-files").send_keys(file)
            # The keyboard from the file field: Tab to Upload, Enter.
            js("document.getElementById('upload-files').focus()")
            press(Keys.TAB)
            check(js("return document.activeElement.type") == "submit", "Tab did not reach Upload")
            press(Keys.ENTER)

        driver.get(base + "/uploads")
        slow_patches()
        pick(path)
        wait_for("return document.querySelector('#uploads li')?.dataset.state === 'uploading'", 20)
        wait_for("return document.querySelector('#uploads li progress').value >= 0.1", 60)
        # Pause with the keyboard: the bar stops; Resume continues.
        js("document.querySelector('#uploads li [data-action=pause]').focus()")
        press(Keys.ENTER)
        wait_for("return document.querySelector('#uploads li').dataset.state === 'paused'", 20)
        paused = js("return document.querySelector('#uploads li progress').value")
        time.sleep(0.5)
        check(js("return document.querySelector('#uploads li progress').value") == paused, "the bar moved while paused")
        check(js("return document.activeElement.dataset.action") == "resume", "the focus did not move to Resume")
        press(Keys.ENTER)
        wait_for("return document.querySelector('#uploads li').dataset.state === 'uploading'", 20)
        wait_for("return document.querySelector('#uploads li progress').value >= 0.3", 60)
        screenshot("uploads-progress")
        check(len(js("return Object.keys(localStorage).filter(k => k.startsWith('tuner.tus.'))")) == 1, "the upload URL was not kept")

        # A reload cuts the upload off; the page lists it as interrupted, with what the server holds.
        driver.refresh()
        wait_for("return document.querySelector('#uploads li')?.dataset.state === 'interrupted'", 20)
        wait_for("return document.querySelector('#uploads li progress').value > 0", 20)
        check(js("return document.querySelector('#uploads li progress').value") < 1, "the upload finished before the reload")
        screenshot("uploads-interrupted")
        slow_patches()
        pick(path)
        wait_for("return document.querySelector('#uploads li').dataset.state === 'complete'", 120)
        resumed = int(js("return document.querySelector('#uploads li').dataset.resumedFrom || '0'"))
        url = js("return document.querySelector('#uploads li').dataset.url")
        check(js("return document.querySelector('#uploads li .percent').textContent") == "100 %", "not 100 %")
        check(len(js("return Object.keys(localStorage).filter(k => k.startsWith('tuner.tus.'))")) == 0, "the finished upload is still kept")

        # Cancel: the upload is terminated on the server (tus DELETE), so HEAD finds nothing.
        pick(other)
        wait_for("return document.querySelectorAll('#uploads li').length === 2 && !!document.querySelector('#uploads li').dataset.url", 20)
        cancelled = js("return document.querySelector('#uploads li').dataset.url")
        js("document.querySelector('#uploads li [data-action=cancel]').focus()")
        press(Keys.ENTER)
        wait_for("return document.querySelector('#uploads li').dataset.state === 'cancelled'", 30)
        gone = js("return fetch(arguments[0], {method: 'HEAD', headers: {'Tus-Resumable': '1.0.0'}}).then(r => r.status)", cancelled)
        check(gone == 404, "the cancelled upload answers " + repr(gone))
        screenshot("uploads")
        report(resumed=resumed, url=url)
        """#
}
