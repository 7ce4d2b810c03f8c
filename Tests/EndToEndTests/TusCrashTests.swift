import Foundation
import Testing
import TunerTesting

/// `kill -9` of `tuner serve` in the middle of a tus PATCH sent by curl, then a restart on the
/// same data folder: the offset Tuner reports never claims bytes it does not hold, and the upload
/// finishes byte-identical.
@Suite struct TusCrashTests {
    static let size = 40 << 20
    static let firstPart = 6 << 20

    @Test func killDashNineMidPatchKeepsTheSyncedOffset() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let source = workspace.file("source.bin")
        let bytes = xorshiftBytes(Self.size, seed: 0x2545_F491_4F6C_DD1D)
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        try Data(bytes[..<Self.firstPart]).write(to: URL(fileURLWithPath: workspace.file("first.bin")))
        try Data(bytes[Self.firstPart...]).write(to: URL(fileURLWithPath: workspace.file("rest.bin")))
        let tus = ["-H", "Tus-Resumable: 1.0.0"]
        let octets = ["-H", "Content-Type: application/offset+octet-stream"]

        let victim = try await TunerProcess.serve(data: data)
        let created = try await Curl.fetch(
            tools[.curl], victim.baseURL + "/api/v1/uploads",
            options: ["-X", "POST", "-H", "Upload-Length: \(Self.size)"] + tus)
        #expect(created.status == 201)
        let location = try #require(created.header("Location"))
        let id = String(location.split(separator: "/").last ?? "")
        let first = try await Curl.fetch(
            tools[.curl], location,
            options: ["-X", "PATCH", "-H", "Upload-Offset: 0", "--data-binary", "@" + workspace.file("first.bin")] + tus
                + octets)
        #expect(first.status == 204)
        #expect(first.header("Upload-Offset") == String(Self.firstPart))

        // The rest at 4 MB/s; the server is killed once its file holds 9 MiB more than the first
        // part (past one of its 8 MiB commit points, with unsynced bytes after it).
        let slow = Task {
            try await Curl.fetch(
                tools[.curl], location,
                options: [
                    "-X", "PATCH", "-H", "Upload-Offset: \(Self.firstPart)", "--limit-rate", "4M",
                    "--data-binary", "@" + workspace.file("rest.bin"),
                ] + tus + octets)
        }
        let part = data + "/uploads/\(id).part"
        // (Bounded, so a server that never writes fails the test below instead of hanging it.)
        for _ in 0..<3000 {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int,
                size < Self.firstPart + (9 << 20)
            else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        await victim.kill9()
        _ = try await slow.value

        let restarted = try await TunerProcess.serve(data: data)
        let url = restarted.baseURL + "/api/v1/uploads/\(id)"
        let head = try await Curl.fetch(tools[.curl], url, options: ["-I"] + tus)
        #expect(head.status == 200)
        let offset = try #require(head.header("Upload-Offset").flatMap { Int($0) })
        #expect(offset >= Self.firstPart && offset <= Self.size)
        print("tus upload after kill -9 mid-PATCH: offset \(offset) of \(Self.size)")
        #expect(offset < Self.size, "the kill landed after the upload finished")
        // Every byte the offset claims is the client's.
        let held = try Data(contentsOf: URL(fileURLWithPath: part))
        #expect(held.count >= offset)
        let prefixMatches = held.prefix(offset) == Data(bytes[..<offset])
        #expect(prefixMatches)

        try Data(bytes[offset...]).write(to: URL(fileURLWithPath: workspace.file("remaining.bin")))
        let finish = try await Curl.fetch(
            tools[.curl], url,
            options: [
                "-X", "PATCH", "-H", "Upload-Offset: \(offset)", "--data-binary", "@" + workspace.file("remaining.bin"),
            ] + tus + octets)
        #expect(finish.status == 204)
        #expect(finish.header("Upload-Offset") == String(Self.size))
        let stored = try Data(contentsOf: URL(fileURLWithPath: data + "/uploads/\(id)"))
        let identical = stored == Data(bytes)
        #expect(identical)
        _ = await restarted.stop()
    }
}
