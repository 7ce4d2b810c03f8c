import AsyncHTTPClient
import Foundation
import Testing
import Transfers
import TunerTesting

@Suite("Tus client")
struct TusClientTests {
    @Test("Failures of each step carry the operation, the status, Retry-After and what to do")
    func classifiedFailures() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let client = TusClient(httpClient: .shared, logger: TusFixtures.logger)

        func createFailure(_ query: String) async -> UploadError? {
            do {
                _ = try await client.create(endpoint: URL(string: origin.baseURL + "/sink/tus?\(query)")!, fileSize: 10)
                return nil
            } catch {
                return error as? UploadError
            }
        }
        let busy = await createFailure("status=503&retryafter=60")
        #expect(busy?.operation == .create)
        #expect(busy?.status == 503)
        #expect(busy?.classification == .transient)
        #expect(busy?.retryAfter == 60)
        #expect(await createFailure("status=401")?.classification == .needsNewURL)
        #expect(await createFailure("status=410")?.classification == .permanent)
        #expect(await createFailure("status=408")?.classification == .transient)
        // A server that is not tus: 201 without a Location.
        let notTus = await createFailure("x=1")
        #expect(notTus?.classification == .permanent)
        #expect(notTus?.message.contains("Location") == true)

        // HEAD on a URL that is not an upload: 404 is permanent, and the file is never read.
        do {
            _ = try await client.offset(of: URL(string: origin.baseURL + "/nothing-here")!)
            Issue.record("an offset for a missing upload")
        } catch let error as UploadError {
            #expect(error.operation == .offset)
            #expect(error.status == 404)
            #expect(error.classification == .permanent)
        }
        #expect(UploadError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == 0)
        #expect(UploadError.parseRetryAfter("soon") == nil)
    }
}
