import Foundation
import Streaming
import Synchronization
import Testing
import TunerApp

/// Work that outlives a request is tracked: shutdown cancels and awaits it, and refuses more.
@Suite struct BackgroundWorkTests {
    @Test func shutdownCancelsAndAwaitsEveryTaskThenRefusesNewOnes() async throws {
        let work = BackgroundWork()
        let ended = Mutex(0)
        for _ in 0..<5 {
            let task = work.start {
                // Runs until cancelled, then records that it ended.
                while !Task.isCancelled { try? await Task.sleep(nanoseconds: 1_000_000) }
                ended.withLock { $0 += 1 }
            }
            #expect(task != nil)
        }
        #expect(work.count == 5)
        await work.shutdown()
        #expect(ended.withLock { $0 } == 5, "every task ended before shutdown returned")
        #expect(work.count == 0)
        #expect(work.start {} == nil, "no work starts once shutdown has begun")
    }

    @Test func finishedTasksLeaveTheRegister() async throws {
        let work = BackgroundWork()
        let task = try #require(work.start {})
        await task.value
        for _ in 0..<1000 where work.count > 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(work.count == 0)
    }
}
