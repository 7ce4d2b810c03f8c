import Foundation
import Testing
import TunerTesting

/// `tuner serve` reads its settings once from flags, environment and the configuration file, in
/// that order of precedence; a file value it cannot use stops the start with the key named.
@Suite struct ConfigurationFileTests {
    func health(_ server: TunerProcess, host: String) async throws -> Int {
        try await RawHTTP.get(port: server.port, target: "/api/v1/health", host: "\(host):\(server.port)").status
    }

    @Test func theDataFoldersFileAppliesAndTheEnvironmentOverridesIt() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try #"{"publicHosts": ["tuner.home.arpa"], "prefetchSegments": 2}"#
            .write(toFile: data + "/tuner.json", atomically: true, encoding: .utf8)

        let fromFile = try await TunerProcess.serve(data: data)
        #expect(try await health(fromFile, host: "tuner.home.arpa") == 200, "the file's public host is accepted")
        #expect(try await health(fromFile, host: "other.lan") == 421)
        _ = await fromFile.stop()

        let overridden = try await TunerProcess.serve(data: data, environment: ["TUNER_PUBLIC_HOSTS": "other.lan"])
        #expect(try await health(overridden, host: "other.lan") == 200, "the environment wins over the file")
        #expect(try await health(overridden, host: "tuner.home.arpa") == 421)
        _ = await overridden.stop()
    }

    @Test func aNamedFileWithAnUnusableValueStopsTheStart() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let file = workspace.file("settings.json")
        try #"{"cacheSize": "lots"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", workspace.file("data"), "--config", file], timeout: .seconds(20))
        #expect(!result.succeeded && !result.timedOut, "\(result.transcript)")
        #expect(result.errorOutput.contains("cacheSize"), "the message names the file key: \(result.transcript)")
        #expect(result.errorOutput.contains("'lots'"), "\(result.transcript)")

        let missing = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", workspace.file("data"), "--config", workspace.file("none.json")],
            timeout: .seconds(20))
        #expect(!missing.succeeded && missing.errorOutput.contains("none.json"), "\(missing.transcript)")
    }
}
