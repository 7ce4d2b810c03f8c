import Foundation
import Testing
import TunerTesting

/// schemathesis reads the served OpenAPI document and sends thousands of generated requests, valid
/// and invalid, to every operation of a live `tuner serve`: no answer may be a 5xx, and every
/// answer must match the document (status, content type, body schema, headers).
@Suite struct SchemathesisTests {
    @Test func theLiveAPIMatchesItsDocumentAndNeverFailsWith5xx() async throws {
        guard let tools = Tools.require(.schemathesis) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        // Generated URLs must never leave the machine.
        let server = try await TunerProcess.serve(data: data, arguments: ["--allow-fetch", "loopback"])
        let result = try await Subprocess.run(
            tools[.schemathesis],
            [
                "run", server.baseURL + "/api/v1/openapi.json",
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance",
                // One worker: schemathesis' worker threads race CPython 3.11's parser (hypothesis
                // parses lambdas), which fails the run with "AST constructor recursion depth
                // mismatch" now and then; the answers are what this test is about.
                "--max-examples", "25", "--workers", "1", "--no-color", "--generation-database", "none",
            ],
            timeout: .seconds(600))
        #expect(
            result.succeeded,
            "schemathesis found problems:\n\(result.output.suffix(20_000))\n\(result.errorOutput.suffix(4000))")
        #expect(result.output.contains("passed"), "schemathesis ran no test cases:\n\(result.output.suffix(4000))")
        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.timedOut, "the server ends cleanly after the run")
        #expect(!server.log.contains("Fatal error"), "\(server.log.suffix(4000))")
    }
}
