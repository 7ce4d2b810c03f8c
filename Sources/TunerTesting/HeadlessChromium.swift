import Foundation

/// Drives headless Chromium through Selenium (python3 + chromedriver) for the browser tests: one
/// place that starts the browser the same way for every test, gives the test's Python steps a
/// few helpers, and saves screenshots where a person can look at them.
///
/// A test passes its steps as the body of a Python function. They can use `driver`, `args` (the
/// extra arguments), `js(script, *arguments)`, `wait_for(script, timeout)` (polls until the
/// script returns something truthy, else fails), `check(condition, message)`, `screenshot(name)`,
/// `report(**values)` (a `RESULT {json}` line) and `play_video(selector, seconds)`. A failed
/// step prints `FAILED <why>` (after a `failure` screenshot) and exits 1.
public enum HeadlessChromium {
    /// Runs `steps` (Python, the body of a function) in a fresh headless Chromium.
    public static func run(
        steps: String, arguments: [String] = [], chromium: String, chromedriver: String,
        screenshots: String? = nil, windowSize: (width: Int, height: Int) = (1280, 800),
        timeout: Duration = .seconds(180)
    ) async throws -> CommandResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tuner-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("steps.py").path
        try Data(program(steps: steps).utf8).write(to: URL(fileURLWithPath: script))
        return try await ExternalCommand.run(
            "python3",
            [script, chromium, chromedriver, screenshots ?? "", "\(windowSize.width),\(windowSize.height)"]
                + arguments,
            timeout: timeout)
    }

    /// The `RESULT {…}` values a run reported, last one winning per key.
    public static func results(of result: CommandResult) -> [String: Any] {
        var values: [String: Any] = [:]
        for line in result.output.split(whereSeparator: \.isNewline) where line.hasPrefix("RESULT ") {
            let data = Data(line.dropFirst("RESULT ".count).utf8)
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                values.merge(object) { $1 }
            }
        }
        return values
    }

    /// `<package>/.build/test-output/screenshots/<suite>`, or `$TUNER_TEST_OUTPUT/screenshots/<suite>`:
    /// where the browser tests leave their pictures. `filePath` is the calling test file's.
    public static func screenshotFolder(suite: String, filePath: String = #filePath) -> String {
        if let root = ProcessInfo.processInfo.environment["TUNER_TEST_OUTPUT"], !root.isEmpty {
            return root + "/screenshots/" + suite
        }
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("Sources").path)
            {
                return directory.path + "/.build/test-output/screenshots/" + suite
            }
            directory.deleteLastPathComponent()
        }
        return FileManager.default.temporaryDirectory.path + "/tuner-test-output/screenshots/" + suite
    }

    /// Steps that play the page's `<video>` (muted) until it has played `seconds`, printing
    /// `played <time>` (or `unsupported …` and exit 3 where Chromium has no native HLS); a media
    /// error or no progress fails.
    public static func playVideoSteps(selector: String = "#video", seconds: Double = 5) -> String {
        "play_video(\(pythonString(selector)), \(seconds))"
    }

    static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    static func program(steps: String) -> String {
        let body = steps.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
            .joined(separator: "\n")
        return preamble + "\ndef steps():\n    pass\n" + body + "\n" + epilogue
    }

    static let preamble = #"""
        import json, os, sys, time
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains

        binary, driver_path, shots, size = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
        args = sys.argv[5:]
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--no-first-run",
                         "--window-size=" + size, "--hide-scrollbars", "--force-device-scale-factor=1"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        driver.set_page_load_timeout(60)

        def js(script, *arguments):
            return driver.execute_script(script, *arguments)

        def wait_for(script, timeout=30, *arguments):
            deadline = time.time() + timeout
            last = None
            while time.time() < deadline:
                last = js(script, *arguments)
                if last:
                    return last
                time.sleep(0.1)
            raise AssertionError("timed out waiting for: " + script.strip() + " (last: " + repr(last) + ")")

        def check(condition, message):
            if not condition:
                raise AssertionError(message)

        def screenshot(name):
            if shots:
                os.makedirs(shots, exist_ok=True)
                driver.save_screenshot(os.path.join(shots, name + ".png"))

        def report(**values):
            print("RESULT " + json.dumps(values), flush=True)

        def play_video(selector="#video", seconds=5, polls=320):
            state = None
            for _ in range(polls):
                state = js("""
                    const v = document.querySelector(arguments[0]);
                    if (!v) return {time: 0, error: ['no video element']};
                    v.muted = true;
                    if (v.paused) { v.play().catch(e => { window.playError = String(e); }); }
                    return {time: v.currentTime, ready: v.readyState, network: v.networkState,
                            error: v.error ? [v.error.code, v.error.message] : null,
                            playError: window.playError || null,
                            supported: document.createElement('video').canPlayType('application/vnd.apple.mpegurl')};
                """, selector)
                if not state["supported"]:
                    print("unsupported canPlayType(application/vnd.apple.mpegurl) is empty")
                    raise SystemExit(3)
                if state["error"]:
                    break
                if state["time"] > seconds:
                    print("played %.3f" % state["time"])
                    return state
                time.sleep(0.25)
            raise AssertionError("the video did not play: " + json.dumps(state))
        """#

    static let epilogue = #"""

        try:
            steps()
        except Exception as error:
            print("FAILED " + str(error).splitlines()[0] if str(error) else "FAILED " + repr(error), flush=True)
            try:
                screenshot("failure")
                for entry in driver.get_log("browser")[-20:]:
                    print("console: " + entry.get("message", ""), flush=True)
            except Exception:
                pass
            sys.exit(1)
        finally:
            driver.quit()
        """#
}
