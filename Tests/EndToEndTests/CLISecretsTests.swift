import Foundation
import Testing
import TunerTesting

/// The `tuner` command prints no provider secret: not in listings, not in error messages.
@Suite struct CLISecretsTests {
    @Test func sourcesAndErrorsShowRedactedURLs() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let refusing = try RefusingPort()
        let data = workspace.file("data")
        let location = "http://127.0.0.1:\(refusing.port)/get.php?username=alice&password=SECRETPW"
        let added = try await TunerProcess.run(["sources", "add", location, "--data", data])
        let listed = try await TunerProcess.run(["sources", "list", "--data", data])
        #expect(listed.succeeded, "\(listed.transcript)")
        #expect(listed.output.contains("get.php?username=REDACTED&password=REDACTED"), "\(listed.output)")
        // A command that fails on the URL itself says which URL, without its secret.
        let download = try await TunerProcess.run(["download", "ftp://alice:SECRETPW@127.0.0.1/x.bin", "--data", data])
        #expect(!download.succeeded)
        for result in [added, listed, download] {
            #expect(!result.transcript.contains("SECRETPW"), "\(result.transcript)")
        }
    }
}
