import Foundation
import Testing
import TunerApp
import TunerTesting

/// The Downloads page's queue order, changed by dragging a row onto another in Chromium (the
/// drag events a mouse makes, dispatched by the test), as the server then reports it.
@Suite(.serialized) struct DownloadsPageTests {
    static let steps = #"""
        base = args[0]
        driver.get(base + "/downloads")
        wait_for("return document.querySelectorAll('#transfers li[data-id]').length === 3")
        before = js("return [...document.querySelectorAll('#transfers li[data-id]')].map(li => li.dataset.id)")
        # Drag the last row onto the first, as a mouse would.
        js("""const rows = [...document.querySelectorAll('#transfers li[data-id]')];
            const data = new DataTransfer();
            rows[2].dispatchEvent(new DragEvent('dragstart', {bubbles: true, dataTransfer: data}));
            rows[0].dispatchEvent(new DragEvent('dragover', {bubbles: true, cancelable: true, dataTransfer: data}));
            rows[0].dispatchEvent(new DragEvent('drop', {bubbles: true, cancelable: true, dataTransfer: data}));""")
        wait_for("return document.querySelector('#transfers li[data-id]').dataset.id === '%s'" % before[2])
        report(before=before, after=js("return [...document.querySelectorAll('#transfers li[data-id]')].map(li => li.dataset.id)"))
        """#

    @Test("dragging a download onto the first puts it first, on the page and on the server")
    func dragReorders() async throws {
        guard requireTools("chromium", "chromedriver", "python3"), await requireSelenium() else { return }
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        for name in ["one", "two", "three"] {
            let url = harness.origin.baseURL + "/files/\(name).bin?size=1000"
            let added = try await HTTP.fetch(
                harness.api + "/transfers", method: "POST", json: #"{"url":"\#(url)","paused":true}"#)
            #expect(added.status == 201)
        }
        let result = try await HeadlessChromium.run(
            steps: Self.steps, arguments: [harness.server.baseURL], chromium: ExternalCommand.path(of: "chromium")!,
            chromedriver: ExternalCommand.path(of: "chromedriver")!)
        #expect(result.succeeded, "\(result.transcript)")
        let values = HeadlessChromium.results(of: result)
        let before = values["before"] as? [String] ?? []
        // The server's order agrees with the page's.
        let list = try HTTP.json(try await HTTP.fetch(harness.api + "/transfers"))["transfers"] as? [[String: Any]]
        let ordered = (list ?? []).sorted {
            (($1["priority"] as? Int ?? 0), ($0["position"] as? Int ?? 0)) < (
                ($0["priority"] as? Int ?? 0), ($1["position"] as? Int ?? 0)
            )
        }.compactMap { ($0["id"] as? Int).map(String.init) }
        #expect(before.count == 3 && ordered.first == before.last, "page \(before) → server \(ordered)")
        try await harness.stop()
    }
}
