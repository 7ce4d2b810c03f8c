import Foundation
import Testing
import TunerTesting

/// The programs the end-to-end tests drive besides `tuner`.
enum ExternalTool: String, Sendable, CaseIterable {
    case curl, ffmpeg, ffprobe
    /// util-linux `script`: runs a command on a pseudo-terminal, as a user's shell would.
    case script
    /// The OpenAPI fuzzer (PyPI), run against the served document.
    case schemathesis
    /// SiliconDust's own client: finds HDHomeRun tuners by UDP discovery.
    case hdhomerunConfig = "hdhomerun_config"
    /// The XMLTV project's validator (with the DTD installed locally).
    case tvValidateFile = "tv_validate_file"
    /// Prometheus' checker of the metrics text format.
    case promtool
    /// Headless Chromium and its WebDriver (Selenium drives them from Python).
    case chromium, chromedriver
    /// The load balancer in front of a cluster (Debian's package installs it in /usr/sbin).
    case haproxy
    /// Python with the `websockets` package (a WebSocket client); the path is python3's.
    case python3Websockets = "python3"

    /// How to get it on the Debian/Ubuntu images CI uses.
    var installHint: String {
        switch self {
        case .curl: "apt-get install curl"
        case .ffmpeg, .ffprobe: "apt-get install ffmpeg"
        case .script: "apt-get install bsdutils"
        case .schemathesis: "pip install schemathesis"
        case .hdhomerunConfig: "apt-get install hdhomerun-config"
        case .tvValidateFile: "apt-get install xmltv-util"
        case .promtool: "apt-get install prometheus"
        case .chromium: "apt-get install chromium"
        case .chromedriver: "apt-get install chromium-driver"
        case .python3Websockets: "pip install websockets"
        case .haproxy: "apt-get install haproxy"
        }
    }

    /// The tool's path on PATH, or nil.
    var path: String? {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin") + ":/usr/sbin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(rawValue)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return self == .python3Websockets && !Self.imports(candidate, "websockets") ? nil : candidate
            }
        }
        return nil
    }

    /// Whether `python` can import `module`.
    static func imports(_ python: String, _ module: String) -> Bool {
        // ChildProcess, not Foundation's Process (see ChildProcess); polled, as callers are synchronous.
        guard let child = try? ChildProcess(python, ["-c", "import \(module)"]) else { return false }
        while true {
            if let ended = child.termination { return !ended.signaled && ended.status == 0 }
            usleep(10_000)
        }
    }
}

/// The paths of the tools a test needs.
struct Tools: Sendable {
    private let paths: [ExternalTool: String]

    subscript(_ tool: ExternalTool) -> String { paths[tool]! }

    /// The paths of `tools`, or nil when one is missing. A missing tool fails the test when
    /// `CI=true` (CI must have every tool, so a silent skip would hide lost coverage); elsewhere
    /// the test is skipped with a message saying what to install.
    ///
    /// This is a runtime check rather than an `.enabled(if:)` trait because the trait cannot fail
    /// a test, and CI needs exactly that.
    static func require(_ tools: ExternalTool..., sourceLocation: SourceLocation = #_sourceLocation) -> Tools? {
        var paths: [ExternalTool: String] = [:]
        var missing: [ExternalTool] = []
        for tool in tools {
            if let path = tool.path { paths[tool] = path } else { missing.append(tool) }
        }
        guard missing.isEmpty else {
            let message = missing.map { "\($0.rawValue) is missing: \($0.installHint)" }.joined(separator: "; ")
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            } else {
                print("skipped: \(message)")
            }
            return nil
        }
        return Tools(paths: paths)
    }
}
