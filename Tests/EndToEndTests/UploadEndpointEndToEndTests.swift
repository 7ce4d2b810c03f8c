import Foundation
import Testing

/// `tuner serve`'s upload settings, through the real binary and curl: the expiry of unfinished tus
/// uploads and the origins allowed to upload from web pages.
@Suite struct UploadEndpointEndToEndTests {
    @Test func serveFlagsSetTheUploadExpiryAndTheAllowedOrigins() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let piece = workspace.file("piece.bin")
        _ = FileManager.default.createFile(atPath: piece, contents: Data((0..<10).map { UInt8($0) }))
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--upload-expiry", "1s", "--upload-origin", "https://app.example"])
        let endpoint = server.baseURL + "/api/v1/uploads"
        let tus = ["-H", "Tus-Resumable: 1.0.0"]

        // One request creates the upload with its first 10 bytes, from an allowed page.
        let created = try await Curl.fetch(
            tools[.curl], endpoint,
            options: tus + [
                "-X", "POST", "-H", "Upload-Length: 100", "-H", "Origin: https://app.example",
                "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@" + piece,
            ])
        #expect(created.status == 201, "\(created.process.transcript)")
        #expect(created.header("Upload-Offset") == "10")
        #expect(created.header("Upload-Expires")?.hasSuffix(" GMT") == true)
        #expect(created.header("Access-Control-Allow-Origin") == "https://app.example")
        let location = try #require(created.header("Location"))
        let id = String(location.split(separator: "/").last ?? "")

        let evil = try await Curl.fetch(
            tools[.curl], endpoint,
            options: [
                "-X", "OPTIONS", "-H", "Origin: https://evil.example", "-H", "Access-Control-Request-Method: POST",
            ])
        #expect(evil.header("Tus-Version") == "1.0.0")
        #expect(evil.header("Access-Control-Allow-Origin") == nil, "an origin not listed is not allowed")

        // Wait for the sweep: the upload answers 404 and its files are gone.
        var status = 0
        for _ in 0..<200 where status != 404 {
            status = try await Curl.fetch(tools[.curl], location, options: tus + ["-I"]).status
            if status != 404 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(status == 404)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: data + "/uploads")) ?? []
        #expect(!left.contains { $0.hasPrefix(id) }, "\(left)")
        #expect(server.log.contains("upload expired and removed"))
        await server.stop()

        // A bad value is refused, naming the setting.
        let badFlag = try await TunerProcess.run(["serve", "--port", "0", "--upload-expiry", "soon", "--data", data])
        #expect(!badFlag.succeeded && badFlag.errorOutput.contains("--upload-expiry"), "\(badFlag.transcript)")
        let badEnvironment = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", data],
            environment: Subprocess.childEnvironment().merging(["TUNER_UPLOAD_EXPIRY": "soon"]) { $1 })
        #expect(
            !badEnvironment.succeeded && badEnvironment.errorOutput.contains("TUNER_UPLOAD_EXPIRY"),
            "\(badEnvironment.transcript)")
    }
}
