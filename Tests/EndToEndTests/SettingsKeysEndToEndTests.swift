import Foundation
import Testing
import TunerTesting

/// The Settings page's API keys, through the real `tuner serve` beyond loopback, headless
/// Chromium and curl: the owner makes a key with the keyboard alone and its secret is shown once
/// (it works, and it is on no later page), revokes it with a button (it stops working at once);
/// a read key's browser sees no keys and is refused by the API.
@Suite(.serialized) struct SettingsKeysEndToEndTests {
    @Test("Settings: the owner makes a key (shown once) and revokes it; a read key sees no keys")
    func keysPanel() async throws {
        guard let tools = Tools.require(.curl, .chromium, .chromedriver) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let token = "keys-panel-token-3b9e71c04d2a8f65e1a7"
        let (server, read) = try await ScopedPagesEndToEndTests.serve(data: data, keyScope: "read", token: token)
        let result = try await HeadlessChromium.run(
            steps: ScopedPagesEndToEndTests.signInSteps + "\n" + Self.steps,
            arguments: [server.baseURL, token, read], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "settings-keys"))
        #expect(result.succeeded, "\(result.transcript)")
        let values = HeadlessChromium.results(of: result)
        #expect(values["done"] as? Bool == true)
        // The secret the page showed was a working key of the scope chosen, until revoked.
        let secret = try #require(values["secret"] as? String)
        #expect(secret.hasPrefix("tuner_"))
        let used = try #require(values["usedStatus"] as? Int)
        #expect(used == 200, "the new key did not sign in: \(used)")
        let after = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/transfers", options: ["-H", "Authorization: Bearer \(secret)"])
        #expect(after.status == 401, "a revoked key still works: \(after.status)")
        let refused = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/keys", options: ["-H", "Authorization: Bearer \(read)"])
        #expect(refused.status == 403)
        _ = await server.stop()
        for secret in [token, read, secret] { #expect(!server.log.contains(secret), "a secret in the log") }
    }

    static let steps = #"""
        base, token, read = args[0], args[1], args[2]
        sign_in(token)
        check(js("return document.querySelectorAll('#key-list tbody tr').length") == 1, "the CLI's key is listed")
        # The keyboard alone: type a name, Tab to the scope, pick manage, Enter makes the key.
        name = driver.find_element(By.ID, "key-name")
        name.send_keys("laptop")
        name.send_keys(Keys.TAB)
        active = driver.switch_to.active_element
        check(active.get_attribute("id") == "key-scope", "Tab goes to the scope: " + str(active.get_attribute("id")))
        active.send_keys("m")
        check(js("return document.getElementById('key-scope').value") == "manage", "the scope is not manage")
        name.send_keys(Keys.ENTER)
        wait_for("return !document.getElementById('key-secret').hidden", 20)
        secret = js("return document.getElementById('key-secret-value').value")
        check(secret.startswith("tuner_"), "no secret shown: " + secret)
        wait_for("return document.querySelectorAll('#key-list tbody tr').length === 2", 20)
        rows = js("return [...document.querySelectorAll('#key-list tbody tr')].map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)")
        check("laptop manage" in rows, "rows: " + repr(rows))
        check(secret not in js("return document.getElementById('key-list').outerHTML"), "the secret is in the list")
        js("document.getElementById('keys-heading').scrollIntoView()")
        screenshot("key-made")
        used = js("return fetch('/api/v1/session', {headers: {Authorization: 'Bearer ' + arguments[0]}, credentials: 'omit'}).then(r => r.status)", secret)
        # Shown once: a new visit to the page does not show it.
        driver.get(base + "/settings")
        wait_for("return document.body.dataset.page === 'settings'")
        check(secret not in driver.page_source, "the secret is shown again")
        check(js("return document.getElementById('key-secret').hidden"), "the secret's box is shown again")
        # Revoke it with its button.
        js("[...document.querySelectorAll('#key-list tbody tr')].find(r => r.cells[0].textContent === 'laptop').querySelector('button.revoke-key').click()")
        wait_for("return document.querySelectorAll('#key-list tbody tr').length === 1", 20)
        wait_for("return document.getElementById('keys-status').textContent.includes('revoked')", 20)
        screenshot("key-revoked")
        driver.find_element(By.CSS_SELECTOR, "[data-sign-out]").click()
        wait_for("return document.body.dataset.page === 'sign-in'", 20)
        sign_in(read)
        check(js("return document.getElementById('key-form') === null"), "a read key sees the key form")
        check(js("return document.getElementById('key-list') === null"), "a read key sees the keys")
        status = js("return fetch('/api/v1/keys', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'x', scope: 'admin'})}).then(r => r.status)")
        check(status == 403, "a read key made a key: %s" % status)
        report(done=True, secret=secret, usedStatus=used)
        """#
}
