import Foundation
import MediaFormats
import Testing
import TunerApp

/// `--allow-fetch`: its default follows the listen address, rules load from every layer, and an
/// unusable rule is an error that names the flag, the variable and the file key.
@Suite struct FetchPolicyConfigurationTests {
    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "tuner-fetch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theDefaultFollowsTheListenAddress() async throws {
        let data = try folder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let loopback = try await TunerConfiguration.load(flags: ["data": data], environment: [:])
        #expect(loopback.allowFetch == nil && loopback.fetchPolicy == .any)
        let beyond = try await TunerConfiguration.load(flags: ["data": data, "host": "0.0.0.0"], environment: [:])
        #expect(beyond.fetchPolicy == .remote)
        let chosen = try await TunerConfiguration.load(
            flags: ["data": data, "host": "0.0.0.0"], environment: ["TUNER_ALLOW_FETCH": "remote,127.0.0.1:8096"])
        #expect(chosen.fetchPolicy.description == "remote,127.0.0.1:8096")
        #expect(chosen.transferManagerConfiguration.fetchPolicy == chosen.fetchPolicy)
        let file = data + "/config.json"
        try Data(#"{"allowFetch": ["10.0.0.0/8", "provider.example"]}"#.utf8).write(to: URL(fileURLWithPath: file))
        let listed = try await TunerConfiguration.load(flags: ["data": data, "config": file], environment: [:])
        #expect(listed.fetchPolicy.description == "10.0.0.0/8,provider.example")
    }

    @Test func anUnparsableRuleNamesEveryPlaceItCanBeSet() async throws {
        let data = try folder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        for text in ["127.1", "remote,10.0.0.0/40", "host:99999", "some_times"] {
            let error = await #expect(throws: FeatureError.self, "\(text)") {
                try await TunerConfiguration.load(flags: ["data": data, "allowFetch": text], environment: [:])
            }
            let message = error?.description ?? ""
            #expect(
                message.contains("--allow-fetch") && message.contains("TUNER_ALLOW_FETCH")
                    && message.contains("allowFetch in the file"),
                "\(message)")
        }
    }
}
