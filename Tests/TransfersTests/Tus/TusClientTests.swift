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

        func createFailure(_ query: String) async -> TransferError? {
            do {
                _ = try await client.create(endpoint: URL(string: origin.baseURL + "/sink/tus?\(query)")!, fileSize: 10)
                return nil
            } catch {
                return error as? TransferError
            }
        }
        let busy = await createFailure("status=503&retryafter=60")
        #expect(busy?.operation == .create)
        #expect(busy?.status == 503)
        #expect(busy?.errorClass == .transient)
        #expect(busy?.retryAfter == 60)
        #expect(await createFailure("status=401")?.errorClass == .needsNewURL)
        #expect(await createFailure("status=410")?.errorClass == .permanent)
        #expect(await createFailure("status=408")?.errorClass == .transient)
        // A server that is not tus: 201 without a Location.
        let notTus = await createFailure("x=1")
        #expect(notTus?.errorClass == .permanent)
        #expect(notTus?.reason.contains("Location") == true)

        // HEAD on a URL that is not an upload: 404 is permanent, and the file is never read.
        do {
            _ = try await client.offset(of: URL(string: origin.baseURL + "/nothing-here")!)
            Issue.record("an offset for a missing upload")
        } catch let error as TransferError {
            #expect(error.operation == .offset)
            #expect(error.status == 404)
            #expect(error.errorClass == .permanent)
        }
        #expect(TransferError.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == 0)
        #expect(TransferError.parseRetryAfter("soon") == nil)
    }
}
