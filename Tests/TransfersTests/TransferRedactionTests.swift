import Foundation
import Testing

@testable import Transfers

/// What a task keeps of a failure (its reason, its history) is shown in the API, the CLI and the
/// web app, and stored: none of it may carry a credential from a URL the failure quotes.
@Suite struct TransferRedactionTests {
    /// Fails every run with a reason that quotes a provider URL, as real failures do.
    struct QuotingFailure: TransferExecutor {
        var kinds: [TransferKind] { [.downloadFile] }
        func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
            throw TransferError.permanent(
                "HTTP 403 from http://alice:SECRETPW@provider.example/get.php?username=alice&password=SECRETPW")
        }
        func discard(_ task: TransferTask, context: TransferContext) async throws {}
        func deleteResult(_ task: TransferTask, context: TransferContext) async throws {}
    }

    @Test func failureReasonsAndHistoryCarryNoSecrets() async throws {
        let harness = try await TransfersHarness()
        await harness.manager.register(QuotingFailure())
        let added = try await harness.manager.add(TransferRequest(sourceURL: harness.url("x.bin", size: 10)))
        let failed = try await harness.waitFor(added.id) { $0.state == .error }
        let reason = try #require(failed.errorReason)
        #expect(reason.contains("HTTP 403"))
        #expect(!reason.contains("SECRETPW"), "\(reason)")
        #expect(!failed.history.contains { $0.message.contains("SECRETPW") }, "\(failed.history)")
        await harness.close()
        var task = failed
        task.record("redirected to https://cdn.example/x?token=SECRETPW")
        #expect(!(task.history.last?.message.contains("SECRETPW") ?? true))
    }
}
