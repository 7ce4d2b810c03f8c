import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Testing
import Transfers
import TunerApp
import TunerServer
import TunerTesting
import Tus

/// Tuner's tus endpoint driven by Tuner's own TusClient, by Python's tuspy, and by raw requests.
@Suite("Tus uploads")
struct TusEndpointTests {
    // MARK: Tuner's client to Tuner's endpoint

    @Test(
        """
        TusClient uploads a few MiB, is interrupted, resumes from the server's offset, and the stored file is \
        byte-identical
        """
    )
    func clientInterruptedAndResumed() async throws {
        let harness = try await ProxyHarness.start()
        let file = try Upload.file(size: 3 << 20 | 777)
        defer { try? FileManager.default.removeItem(atPath: file.path) }
        let client = TusClient(httpClient: HTTP.client, logger: Upload.logger)
        let endpoint = URL(string: harness.api + "/uploads")!
        let url = try await client.create(
            endpoint: endpoint, fileSize: file.size, metadata: ["filename": "holiday.mp4"])
        #expect(url.absoluteString.hasPrefix(harness.api + "/uploads/"))

        // Cancel once the server confirmed 1 MiB: the task stops mid-upload.
        let interrupted = Upload.cancelling(when: { $0.bytesConfirmed >= 1 << 20 }) { progress in
            try await client.upload(file: file.path, to: url, chunkSize: 256 << 10, progress: progress)
        }
        await #expect(throws: CancellationError.self) { try await interrupted.value }
        let offset = try await client.offset(of: url)
        #expect(offset >= 1 << 20 && offset < file.size)

        // Told a stale offset (0), the client meets 409, asks the server and resumes by itself.
        let final = try await client.upload(file: file.path, to: url, from: 0, chunkSize: 1 << 20)
        #expect(final == file.size)
        let id = url.lastPathComponent
        #expect(try Upload.sha256(file: harness.dataDirectory + "/uploads/\(id)") == file.sha256)
        let head = try await Upload.request(url.absoluteString, method: "HEAD")
        #expect(head.header("Upload-Metadata") == "filename \(Data("holiday.mp4".utf8).base64EncodedString())")

        try await client.terminate(url)
        #expect(!FileManager.default.fileExists(atPath: harness.dataDirectory + "/uploads/\(id)"))
        try await client.terminate(url)  // already gone counts as terminated
        do {
            _ = try await client.offset(of: url)
            Issue.record("a terminated upload still has an offset")
        } catch let error as TransferError {
            #expect(error.status == 404)
            #expect(error.operation == .offset)
            #expect(error.errorClass == .permanent)
        }
        try await harness.stop()
    }

    @Test(
        """
        A connection dropped mid-PATCH and a restart of Tuner keep the synced offset, and the upload completes \
        identically
        """
    )
    func dropAndRestartKeepOffset() async throws {
        let harness = try await ProxyHarness.start()
        let file = try Upload.file(size: 4 << 20)
        defer { try? FileManager.default.removeItem(atPath: file.path) }
        let client = TusClient(httpClient: HTTP.client, logger: Upload.logger)
        let url = try await client.create(endpoint: URL(string: harness.api + "/uploads")!, fileSize: file.size)
        let id = url.lastPathComponent

        // 1 MiB PATCHes; cancelled (the connection closes) halfway through the second one.
        let interrupted = Upload.cancelling(when: { $0.bytesSent >= 3 << 19 }) { progress in
            try await client.upload(file: file.path, to: url, chunkSize: 1 << 20, checksum: false, progress: progress)
        }
        await #expect(throws: CancellationError.self) { try await interrupted.value }

        // A graceful stop waits for the PATCH handler, which commits what it synced.
        try await harness.server.stop()
        var configuration = TunerConfiguration(port: 0, dataDirectory: harness.dataDirectory)
        configuration.host = "127.0.0.1"
        let restarted = try await TunerServer.start(configuration: configuration, logger: Upload.logger)
        let newURL = URL(string: restarted.baseURL + "/api/v1/uploads/\(id)")!
        let offset = try await client.offset(of: newURL)
        #expect(offset >= 1 << 20 && offset <= file.size)
        // The committed offset never claims bytes that are not the client's.
        let part = harness.dataDirectory + "/uploads/\(id).part"
        if offset < file.size {
            let kept = try Data(contentsOf: URL(fileURLWithPath: part)).prefix(Int(offset))
            #expect(Upload.sha256(kept) == Upload.sha256(file.bytes.prefix(Int(offset))))
        }

        try await client.upload(file: file.path, to: newURL)
        #expect(try Upload.sha256(file: harness.dataDirectory + "/uploads/\(id)") == file.sha256)
        try await restarted.stop()
        try await harness.stop()
    }

    // MARK: tuspy

    @Test(
        "Python's tuspy uploads part of a file, a second run resumes it by URL, and the stored file is byte-identical")
    func tuspyInterruptedAndResumed() async throws {
        guard let python = await Upload.requireTuspy() else { return }
        let harness = try await ProxyHarness.start()
        let file = try Upload.file(size: 2 << 20 | 4321)
        defer { try? FileManager.default.removeItem(atPath: file.path) }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("tus-\(UUID().uuidString).py").path
        try Data(Upload.tuspyScript.utf8).write(to: URL(fileURLWithPath: script))
        defer { try? FileManager.default.removeItem(atPath: script) }
        let endpoint = harness.api + "/uploads"

        // First run: two chunks of 512 KiB with sha1 checksums, then the process exits.
        let first = try await ExternalCommand.run(python, [script, "start", endpoint, file.path, "2", "524288"])
        #expect(first.succeeded, "\(first.transcript)")
        let lines = first.output.split(separator: "\n").map(String.init)
        let url = try #require(lines.first, "\(first.transcript)")
        #expect(lines.dropFirst().first == "1048576")
        #expect(url.hasPrefix(endpoint + "/"))
        let head = try await Upload.request(url, method: "HEAD")
        #expect(head.header("Upload-Offset") == "1048576")

        // Second run: a new process resumes from the server's offset.
        let second = try await ExternalCommand.run(python, [script, "resume", endpoint, file.path, url, "524288"])
        #expect(second.succeeded, "\(second.transcript)")
        #expect(second.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(file.size))
        let id = String(url.split(separator: "/").last ?? "")
        #expect(try Upload.sha256(file: harness.dataDirectory + "/uploads/\(id)") == file.sha256)
        try await harness.stop()
    }

    // MARK: Protocol edge cases

    @Test("OPTIONS advertises the protocol; creation, HEAD, PATCH and DELETE answer as tus 1.0 says")
    func protocolBasics() async throws {
        let harness = try await ProxyHarness.start {
            $0.uploadMaxSize = 10 << 20
            $0.publicHosts = ["tuner.example"]
        }
        let endpoint = harness.api + "/uploads"
        let options = try await Upload.request(endpoint, method: "OPTIONS", tus: false)
        #expect(options.status == 204)
        #expect(options.header("Tus-Version") == "1.0.0")
        let extensions = Set((options.header("Tus-Extension") ?? "").split(separator: ",").map(String.init))
        #expect(
            extensions.isSuperset(of: [
                "creation", "creation-with-upload", "termination", "checksum", "creation-defer-length",
            ]))
        #expect(options.header("Tus-Checksum-Algorithm") == "sha256,sha1,md5")
        #expect(options.header("Tus-Max-Size") == String(10 << 20))

        let bytes = Upload.bytes(10_000)
        // creation-with-upload: the first 4000 bytes ride on the POST.
        let created = try await Upload.request(
            endpoint, method: "POST",
            headers: [
                "Upload-Length": "10000", "Upload-Metadata": "filename YS5tcDQ=,private",
                "Content-Type": "application/offset+octet-stream",
            ], body: Array(bytes[0..<4000]))
        #expect(created.status == 201)
        #expect(created.header("Upload-Offset") == "4000")
        let url = try #require(created.header("Location"))
        #expect(url.hasPrefix(endpoint + "/"))

        let head = try await Upload.request(url, method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("Upload-Offset") == "4000")
        #expect(head.header("Upload-Length") == "10000")
        #expect(head.header("Upload-Metadata") == "filename YS5tcDQ=,private")
        #expect(head.header("Cache-Control") == "no-store")
        #expect(head.header("Tus-Resumable") == "1.0.0")

        // PATCH through X-HTTP-Method-Override, with a checksum.
        let rest = Array(bytes[4000...])
        let patched = try await Upload.request(
            url, method: "POST",
            headers: [
                "X-HTTP-Method-Override": "PATCH", "Upload-Offset": "4000",
                "Content-Type": "application/offset+octet-stream",
                "Upload-Checksum": "sha256 " + Upload.sha256Base64(rest),
            ], body: rest)
        #expect(patched.status == 204)
        #expect(patched.header("Upload-Offset") == "10000")
        let id = String(url.split(separator: "/").last!)
        #expect(try Upload.sha256(file: harness.dataDirectory + "/uploads/\(id)") == Upload.sha256(bytes))

        #expect(try await Upload.request(url, method: "DELETE").status == 204)
        #expect(try await Upload.request(url, method: "HEAD").status == 404)
        #expect(!FileManager.default.fileExists(atPath: harness.dataDirectory + "/uploads/\(id)"))

        // The Location follows the address the client used (a name the user configured).
        let other = try await Upload.request(
            endpoint, method: "POST", headers: ["Upload-Length": "1", "Host": "tuner.example:1234"])
        #expect(other.header("Location")?.hasPrefix("http://tuner.example:1234/api/v1/uploads/") == true)
        try await harness.stop()
    }

    @Test(
        """
        Refusals: 409 wrong offset, 415 content type, 460 checksum (offset unchanged), 404, 412, 413, 400 for \
        garbage headers
        """
    )
    func refusals() async throws {
        let harness = try await ProxyHarness.start { $0.uploadMaxSize = 1 << 20 }
        let endpoint = harness.api + "/uploads"
        let created = try await Upload.request(endpoint, method: "POST", headers: ["Upload-Length": "1000"])
        let url = try #require(created.header("Location"))
        let octets = "application/offset+octet-stream"
        let body = Upload.bytes(100)

        let wrongOffset = try await Upload.request(
            url, method: "PATCH", headers: ["Upload-Offset": "5", "Content-Type": octets], body: body)
        #expect(wrongOffset.status == 409)
        #expect(wrongOffset.header("Upload-Offset") == "0")
        #expect(
            try await Upload.request(
                url, method: "PATCH", headers: ["Upload-Offset": "0", "Content-Type": "application/json"], body: body
            ).status == 415)
        #expect(
            try await Upload.request(url, method: "PATCH", headers: ["Upload-Offset": "0"], body: body).status == 415)

        let badChecksum = try await Upload.request(
            url, method: "PATCH",
            headers: [
                "Upload-Offset": "0", "Content-Type": octets,
                "Upload-Checksum": "sha1 " + Upload.sha256Base64(body).prefix(28),
            ], body: body)
        #expect(badChecksum.status == 460)
        #expect(try await Upload.request(url, method: "HEAD").header("Upload-Offset") == "0")
        #expect(
            try await Upload.request(
                url, method: "PATCH",
                headers: [
                    "Upload-Offset": "0", "Content-Type": octets, "Upload-Checksum": "crc32 AAAA",
                ], body: body
            ).status == 400)

        let unknown = endpoint + "/AAAAAAAAAAAAAAAAAAAAAA"
        #expect(try await Upload.request(unknown, method: "HEAD").status == 404)
        #expect(
            try await Upload.request(
                unknown, method: "PATCH", headers: ["Upload-Offset": "0", "Content-Type": octets], body: body
            ).status == 404)
        // Dot segments, even encoded, never reach the store: the request guard refuses them.
        #expect(try await Upload.request(endpoint + "/..%2F..%2Fsecret", method: "HEAD").status == 400)

        let noVersion = try await Upload.request(url, method: "HEAD", tus: false)
        #expect(noVersion.status == 412)
        #expect(noVersion.header("Tus-Version") == "1.0.0")
        #expect(
            try await Upload.request(
                endpoint, method: "POST", headers: ["Upload-Length": "10", "Tus-Resumable": "0.2.2"], tus: false
            ).status == 412)

        #expect(
            try await Upload.request(endpoint, method: "POST", headers: ["Upload-Length": String((1 << 20) + 1)]).status
                == 413)
        let tooMuch = try await Upload.request(
            url, method: "PATCH", headers: ["Upload-Offset": "0", "Content-Type": octets], body: Upload.bytes(1001))
        #expect(tooMuch.status == 413)

        for garbage in ["-1", "abc", "1e3", "", " 12 34", "99999999999999999999999", "0x10"] {
            #expect(
                try await Upload.request(endpoint, method: "POST", headers: ["Upload-Length": garbage]).status == 400,
                "Upload-Length '\(garbage)'")
            #expect(
                try await Upload.request(
                    url, method: "PATCH", headers: ["Upload-Offset": garbage, "Content-Type": octets], body: body
                ).status == 400,
                "Upload-Offset '\(garbage)'")
        }
        #expect(try await Upload.request(endpoint, method: "POST", headers: [:]).status == 400)
        #expect(try await Upload.request(endpoint, method: "POST", headers: ["Upload-Defer-Length": "2"]).status == 400)
        #expect(
            try await Upload.request(
                endpoint, method: "POST", headers: ["Upload-Length": "10", "Upload-Metadata": "k not-base64!"]
            ).status == 400)
        #expect(try await Upload.request(url, method: "HEAD").header("Upload-Offset") == "0")
        try await harness.stop()
    }
}

/// Helpers of the tus tests.
enum Upload {
    struct File {
        var path: String
        var bytes: [UInt8]
        var size: Int64 { Int64(bytes.count) }
        var sha256: String { Upload.sha256(bytes) }
    }

    static var logger: Logger {
        var logger = Logger(label: "tus-test")
        logger.logLevel = .warning
        return logger
    }

    /// `count` bytes that depend on `seed` (xorshift), never all the same.
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        xorshiftBytes(count, seed: seed)
    }

    static func file(size: Int) throws -> File {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tus-source-\(UUID().uuidString).bin")
            .path
        let bytes = Upload.bytes(size)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return File(path: path, bytes: bytes)
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        var hasher = TusChecksumAlgorithm.sha256.makeHasher()
        Array(bytes).withUnsafeBytes { hasher.update($0) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static func sha256Base64(_ bytes: [UInt8]) -> String {
        var hasher = TusChecksumAlgorithm.sha256.makeHasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize().base64EncodedString()
    }

    static func sha256(file path: String) throws -> String {
        sha256([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Runs `work` in a task that is cancelled from inside its own progress callback once `when`
    /// holds, as a user pressing "pause" would.
    static func cancelling(
        when condition: @escaping @Sendable (UploadProgress) -> Bool,
        _ work: @escaping @Sendable (@escaping @Sendable (UploadProgress) -> Void) async throws -> Int64
    ) -> Task<Int64, any Error> {
        let box = TaskBox()
        let task = Task {
            try await work { progress in
                if condition(progress) { box.cancel() }
            }
        }
        box.set(task)
        return task
    }

    final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var task: Task<Int64, any Error>?
        private var cancelled = false

        func set(_ task: Task<Int64, any Error>) {
            lock.lock()
            self.task = task
            let cancelNow = cancelled
            lock.unlock()
            if cancelNow { task.cancel() }
        }

        func cancel() {
            lock.lock()
            cancelled = true
            let task = self.task
            lock.unlock()
            task?.cancel()
        }
    }

    /// One raw request; `tus` adds `Tus-Resumable: 1.0.0`.
    static func request(
        _ url: String, method: String, headers: [String: String] = [:], body: [UInt8]? = nil, tus: Bool = true
    ) async throws -> Fetched {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if tus { request.headers.add(name: "Tus-Resumable", value: "1.0.0") }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTP.client.execute(request, timeout: .seconds(30))
        var received: [UInt8] = []
        for try await chunk in response.body { received.append(contentsOf: chunk.readableBytesView) }
        return Fetched(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: received)
    }

    /// python3 when it can import tusclient; otherwise nil after failing (CI=true) or
    /// announcing the skip.
    static func requireTuspy(sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
        var problem: String?
        if let python = ExternalCommand.path(of: "python3") {
            let probe = try? await ExternalCommand.run(python, ["-c", "import tusclient"])
            if probe?.succeeded == true { return python }
            problem = "tuspy is missing: pip install tuspy"
        } else {
            problem = "python3 is missing: apt-get install python3, then pip install tuspy"
        }
        let message = problem ?? "tuspy is missing"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            print("skipped: \(message)")
        }
        return nil
    }

    /// `start ENDPOINT FILE CHUNKS CHUNK_SIZE` uploads CHUNKS chunks and prints the URL and
    /// offset; `resume ENDPOINT FILE URL CHUNK_SIZE` finishes the upload at URL and prints the
    /// offset. Checksums (sha1) on every PATCH.
    static let tuspyScript = """
        import sys
        from tusclient import client

        mode, endpoint, path = sys.argv[1], sys.argv[2], sys.argv[3]
        tus = client.TusClient(endpoint)
        if mode == "start":
            chunks, chunk_size = int(sys.argv[4]), int(sys.argv[5])
            uploader = tus.uploader(path, chunk_size=chunk_size, metadata={"filename": "from-tuspy.mp4"}, upload_checksum=True)
            for _ in range(chunks):
                uploader.upload_chunk()
            print(uploader.url)
            print(uploader.offset)
        else:
            url, chunk_size = sys.argv[4], int(sys.argv[5])
            uploader = tus.uploader(path, url=url, chunk_size=chunk_size, upload_checksum=True)
            uploader.upload()
            print(uploader.offset)
        """
}
