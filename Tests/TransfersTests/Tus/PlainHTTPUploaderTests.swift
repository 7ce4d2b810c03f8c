import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import Testing
import Transfers
import TunerTesting

@Suite("Plain HTTP uploads")
struct PlainHTTPUploaderTests {
    @Test("PUT and POST stream a file byte-identical to the server, with headers and progress")
    func putAndPost() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let directory = try TusFixtures.temporaryDirectory("plain-upload")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TusFixtures.bytes(3 << 20 | 123)
        let path = directory + "/clip.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let uploader = PlainHTTPUploader(httpClient: .shared, logger: TusFixtures.logger)

        let seen = NIOLockedValueBox<[UploadProgress]>([])
        let response = try await uploader.upload(
            file: path, to: URL(string: origin.baseURL + "/sink/put.bin")!, headers: ["Content-Type": "video/mp4"]
        ) { progress in seen.withLockedValue { $0.append(progress) } }
        #expect(response.status == 201)
        let received = try #require(origin.receivedUpload(name: "put.bin"))
        #expect(received.method == "PUT")
        #expect(received.length == bytes.count)
        #expect(received.sha256 == TusFixtures.sha256(bytes))
        #expect(received.contentType == "video/mp4")
        let reports = seen.withLockedValue { $0 }
        #expect(
            reports.last
                == UploadProgress(
                    bytesSent: Int64(bytes.count), bytesConfirmed: Int64(bytes.count), totalBytes: Int64(bytes.count)))
        #expect(reports.count > 3)  // reported while sending, not only at the end

        try await uploader.upload(file: path, to: URL(string: origin.baseURL + "/sink/post.bin")!, method: .POST)
        #expect(origin.receivedUpload(name: "post.bin")?.sha256 == TusFixtures.sha256(bytes))
        #expect(origin.receivedUpload(name: "post.bin")?.method == "POST")
    }

    @Test("Failures carry the status and say whether to retry, give up or get a new URL")
    func classifiedFailures() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let directory = try TusFixtures.temporaryDirectory("plain-upload")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/small.bin"
        try Data(TusFixtures.bytes(1000)).write(to: URL(fileURLWithPath: path))
        let uploader = PlainHTTPUploader(httpClient: .shared, logger: TusFixtures.logger)

        func failure(_ query: String) async -> TransferError? {
            do {
                try await uploader.upload(file: path, to: URL(string: origin.baseURL + "/sink/x?\(query)")!)
                return nil
            } catch {
                return error as? TransferError
            }
        }
        let throttled = await failure("status=429&retryafter=7")
        #expect(throttled?.status == 429)
        #expect(throttled?.errorClass == .transient)
        #expect(throttled?.retryAfter == 7)
        #expect(await failure("status=503")?.errorClass == .transient)
        #expect(await failure("status=403")?.errorClass == .needsNewURL)
        #expect(await failure("status=413")?.errorClass == .permanent)
        #expect(await failure("status=404")?.errorClass == .permanent)

        do {
            try await uploader.upload(file: directory + "/missing.bin", to: URL(string: origin.baseURL + "/sink/y")!)
            Issue.record("a missing file uploaded")
        } catch let error as TransferError {
            #expect(error.operation == .readFile)
            #expect(error.errorClass == .permanent)
        }
        // Nothing listens on a closed port: no answer is transient. (A client that gives up on
        // connecting after a second; the shared one keeps trying for much longer.)
        let impatient = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(timeout: .init(connect: .seconds(1), read: .seconds(30))))
        do {
            try await PlainHTTPUploader(httpClient: impatient, logger: TusFixtures.logger).upload(
                file: path, to: URL(string: "http://127.0.0.1:1/sink/z")!)
            Issue.record("an upload to a closed port succeeded")
        } catch let error as TransferError {
            #expect(error.status == nil)
            #expect(error.errorClass == .transient)
        } catch {
            // Recorded, not thrown: the client below must be shut down either way.
            Issue.record("not a TransferError: \(error)")
        }
        try await impatient.shutdown()
    }
}
