import Foundation
import Testing
import TunerTesting

@testable import Transfers

/// The manager's one lifecycle, `run()`, ended the way a service group ends it: by cancellation.
@Suite struct TransferLifecycleTests {
    @Test(
        "Cancelling run() mid-download keeps the task active at its synced offset; the next manager completes it",
        arguments: StorageEngine.underTest)
    func cancellingRunKeepsActiveTasksForTheNextStart(engine: StorageEngine) async throws {
        let size = 3 << 20
        let first = try await TransfersHarness(engine: engine, start: false)
        let sha = TransfersHarness.sha256(name: "service.bin", size: size)
        let task = try await first.manager.add(
            TransferRequest(sourceURL: first.url("service.bin", size: size, "drip=65536,20"), expectedSHA256: sha))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first.manager.run() }
            _ = try? await first.waitForCommitted(task.id, atLeast: 600_000)
            group.cancelAll()
        }
        await first.close(keepFiles: true, keepOrigin: true)

        let stored = try #require(try await first.store.loadAll().first { $0.id == task.id })
        #expect(stored.state == .active, "a shutdown is not a failure: the task stays active")
        #expect(stored.committedBytes >= 600_000)
        #expect(stored.retryCount == 0)
        #expect(!stored.history.contains { $0.message.contains("attempt failed") })

        let second = try await TransfersHarness(
            origin: first.origin, directory: first.directory, database: first.database)
        let finished = try await second.waitFinished(task.id)
        #expect(finished.state == .complete)
        #expect(try second.sha256(ofDownload: "service.bin") == sha)
        #expect(finished.history.contains { $0.message.contains("resuming after a restart") })
        await second.close()
    }
}
