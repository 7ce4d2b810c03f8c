import Foundation
import Testing
import TunerApp
import TunerTesting

/// The Cache page and the endpoints behind it: the hit ratio minute by minute, pins listed
/// without their secrets and unpinned by key, preloads started and followed, in Chromium.
@Suite(.serialized) struct CachePageTests {
    static let steps = #"""
        base, origin = args[0], args[1]
        driver.get(base + "/cache")
        wait_for("return document.querySelectorAll('#cache-chart svg.chart rect.bar').length >= 1")
        wait_for("return document.querySelectorAll('#cache-pins button.unpin').length === 1")
        check("hunter2" not in driver.page_source, "a pinned URL's password is on the page")
        check("REDACTED" in js("return document.getElementById('cache-pins').textContent"), "the pin is not listed")
        screenshot("cache")
        # Unpin from the page; then preload a file through the form and see it complete.
        driver.find_element(By.CSS_SELECTOR, "#cache-pins button.unpin").click()
        wait_for("return document.getElementById('cache-pins').textContent.includes('Nothing pinned')")
        driver.find_element(By.ID, "preload-url").send_keys(origin + "/files/preloaded.bin?size=300000")
        driver.find_element(By.CSS_SELECTOR, "#preload-form button[type=submit]").click()
        wait_for("return [...document.querySelectorAll('#cache-preloads li')].some(li => li.dataset.state === 'complete')", 30)
        report(done=True)
        """#

    @Test("the cache page charts hits by minute, lists pins without secrets, unpins and preloads")
    func cachePage() async throws {
        guard requireTools("chromium", "chromedriver", "python3"), await requireSelenium() else { return }
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        let admin = harness.server.engine.cacheAdmin
        admin.recordHistory()
        // A miss, then a hit, of a URL that carries a password.
        let origin = harness.origin.baseURL + "/files/a.bin?size=100000&password=hunter2"
        let proxied = try harness.proxyURL("/files/a.bin?size=100000&password=hunter2")
        #expect(try await HTTP.fetch(proxied).status == 200)
        #expect(try await HTTP.fetch(proxied).status == 200)
        admin.recordHistory()
        let history = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/history"))
        let samples = history["samples"] as? [[String: Any]] ?? []
        // The last minute holds both reads (the server's own sampler may have added quiet ones).
        let last = samples.last ?? [:]
        #expect((last["hitBytes"] as? Int ?? 0) + (last["missBytes"] as? Int ?? 0) >= 200_000, "\(samples)")

        let pinned = try await HTTP.fetch(
            harness.api + "/cache/pin", method: "POST", json: #"{"url":"\#(origin)","pinned":true}"#)
        #expect(pinned.status == 200)
        let pins = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/pins"))["pins"] as? [[String: Any]] ?? []
        #expect(pins.count == 1)
        #expect((pins.first?["url"] as? String)?.contains("hunter2") == false)
        #expect(try await HTTP.fetch(harness.api + "/cache/pins/no-such-key", method: "DELETE").status == 404)

        let result = try await HeadlessChromium.run(
            steps: Self.steps, arguments: [harness.server.baseURL, harness.origin.baseURL],
            chromium: ExternalCommand.path(of: "chromium")!, chromedriver: ExternalCommand.path(of: "chromedriver")!,
            screenshots: HeadlessChromium.screenshotFolder(suite: "web-app"))
        #expect(result.succeeded, "\(result.transcript)")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true, "\(result.transcript)")
        let after = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/pins"))["pins"] as? [[String: Any]]
        #expect(after?.isEmpty == true, "unpinned from the page")
        try await harness.stop()
    }
}
