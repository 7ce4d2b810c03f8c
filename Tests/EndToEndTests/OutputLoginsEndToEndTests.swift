import Foundation
import Testing
import TunerTesting

/// The Outputs page's Xtream logins, through the real `tuner serve`, headless Chromium, curl and
/// a live channel played as a player would: the owner sees each login and who is watching with it
/// now; adds one (its password made in the page, shown once, and working in player_api.php);
/// changes its limit; disables it (the player sees `Disabled` and nothing else) and enables it
/// again; removes one. `tuner users change --disable-login` does the same from the shell.
@Suite(.serialized) struct OutputLoginsEndToEndTests {
    @Test("Outputs: logins listed with who watches, added with a shown-once password, changed, disabled, removed")
    func loginsPanel() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .chromium, .chromedriver) else { return }
        let setup = try await XtreamPanelEndToEndTests.setUp(curl: tools[.curl], ffmpeg: tools[.ffmpeg])
        let base = setup.server.baseURL
        // A channel that plays as providers' do (endless MPEG-TS), watched by `viewer` meanwhile.
        let (provider, loop) = try await XtreamPanelEndToEndTests.addLoopChannel(setup)
        let watching = Task {
            _ = try? await Curl.fetch(
                setup.curl, "\(base)/live/viewer/correct-horse/\(loop).ts", options: ["--max-time", "60"],
                bodyPath: setup.fixture.workspace.file("watched.ts"), timeout: .seconds(90))
        }

        let result = try await HeadlessChromium.run(
            steps: Self.steps, arguments: [base], chromium: tools[.chromium], chromedriver: tools[.chromedriver],
            screenshots: HeadlessChromium.screenshotFolder(suite: "logins"))
        watching.cancel()
        #expect(result.succeeded, "\(result.transcript)")
        let values = HeadlessChromium.results(of: result)
        #expect(values["done"] as? Bool == true)
        let password = try #require(values["password"] as? String)
        #expect(password.count == 20 && password.allSatisfy { $0.isLetter || $0.isNumber }, "\(password)")
        #expect(values["activeAfterAdd"] as? String == "Active")
        #expect(values["statusDisabled"] as? String == "Disabled")
        #expect(values["liveWhileDisabled"] as? Int == 403)
        #expect(values["statusEnabled"] as? String == "Active")

        // The shell does the same: disabled, a player sees Disabled; enabled, Active.
        let data = setup.fixture.workspace.file("data")
        for (flag, expected) in [("--disable-login", "Disabled"), ("--enable-login", "Active")] {
            let changed = try await TunerProcess.run(["users", "change", "kitchen", flag, "--data", data])
            #expect(changed.succeeded, "\(changed.transcript)")
            let account = try await setup.json(base + "/player_api.php?username=kitchen&password=\(password)")
            #expect(account.object?["user_info"]?.object?["status"]?.string == expected, "\(flag): \(account)")
        }
        // The password is nowhere but in the page that showed it once.
        let users = try await Curl.fetch(setup.curl, base + "/api/v1/users")
        #expect(!String(decoding: users.body, as: UTF8.self).contains(password))
        let log = setup.server.log
        try await setup.stop()
        #expect(!log.contains(password), "the password is in the log")
        await provider.shutdown()
    }

    static let steps = #"""
        base = args[0]
        import json as _json
        def player(query):
            return js("return fetch(arguments[0]).then(async r => [r.status, await r.text()])", base + "/player_api.php?" + query)
        driver.get(base + "/outputs")
        wait_for("return document.querySelectorAll('#login-list tbody tr').length === 3", 20)
        names = js("return [...document.querySelectorAll('#login-list tbody tr')].map(r => r.dataset.user)")
        check(sorted(names) == ["forever", "old", "viewer"], "logins: " + repr(names))
        state = lambda user: js("return document.querySelector(`#login-list tr[data-user='${arguments[0]}'] .login-state`).textContent", user)
        check(state("old") == "expired" and state("viewer") == "active", "states")
        # Who is watching: the viewer's live channel, from the streams events.
        wait_for("return document.querySelector(`#login-list tr[data-user='viewer'] .login-watching`).textContent.includes('Loop')", 30)
        js("document.getElementById('logins-heading').scrollIntoView()")
        screenshot("logins")

        # Add one with the keyboard: name, Tab through the profiles to the limit, Enter.
        name = driver.find_element(By.ID, "login-name")
        name.send_keys("kitchen")
        js("document.querySelector('#login-form input[value=tv]').checked = true")
        limit = driver.find_element(By.ID, "login-limit")
        limit.clear()
        limit.send_keys("2")
        driver.find_element(By.ID, "login-stream-profile").send_keys("r")
        driver.find_element(By.ID, "login-expiry").send_keys("12312099")
        limit.send_keys(Keys.ENTER)
        wait_for("return !document.getElementById('login-made').hidden", 20)
        password = js("return document.getElementById('login-made-password').value")
        server = js("return document.getElementById('login-made-server').value")
        check(server == base, "server shown: " + server)
        check(js("return document.getElementById('login-made-name').value") == "kitchen", "name shown")
        wait_for("return !!document.querySelector(`#login-list tr[data-user='kitchen']`)", 20)
        row = js("return [...document.querySelector(`#login-list tr[data-user='kitchen']`).cells].map(c => c.textContent)")
        check(row[1] == "default, tv" and row[2] == "2" and row[3] == "remux" and row[4] == "2099-12-31", "row: " + repr(row))
        check(password not in js("return document.getElementById('login-list').outerHTML"), "the password is in the list")
        screenshot("login-added")
        status, text = player("username=kitchen&password=" + password)
        active_after_add = _json.loads(text)["user_info"]["status"] if status == 200 else str(status)

        # Change its limit through the form.
        js("document.querySelector(`#login-list tr[data-user='kitchen'] button[data-action=edit]`).click()")
        check(driver.switch_to.active_element.get_attribute("id") == "login-limit", "the form takes the focus")
        limit.clear()
        limit.send_keys("3")
        limit.send_keys(Keys.ENTER)
        wait_for("return document.querySelector(`#login-list tr[data-user='kitchen']`).cells[2].textContent === '3'", 20)
        check(js("return document.getElementById('login-made').hidden"), "a change without a new password shows one")

        # Disable: the player sees Disabled and no channel; enable again.
        js("document.querySelector(`#login-list tr[data-user='kitchen'] button[data-action=disable]`).click()")
        wait_for("return document.querySelector(`#login-list tr[data-user='kitchen'] .login-state`).textContent === 'disabled'", 20)
        status, text = player("username=kitchen&password=" + password)
        status_disabled = _json.loads(text)["user_info"]["status"]
        live_while_disabled = player("username=kitchen&password=" + password + "&action=get_live_streams")[0]
        screenshot("login-disabled")
        js("document.querySelector(`#login-list tr[data-user='kitchen'] button[data-action=enable]`).click()")
        wait_for("return document.querySelector(`#login-list tr[data-user='kitchen'] .login-state`).textContent === 'active'", 20)
        status_enabled = _json.loads(player("username=kitchen&password=" + password)[1])["user_info"]["status"]

        # Remove one.
        js("document.querySelector(`#login-list tr[data-user='forever'] button[data-action=remove]`).click()")
        wait_for("return !document.querySelector(`#login-list tr[data-user='forever']`)", 20)
        report(done=True, password=password, activeAfterAdd=active_after_add, statusDisabled=status_disabled,
               liveWhileDisabled=live_while_disabled, statusEnabled=status_enabled)
        """#
}
