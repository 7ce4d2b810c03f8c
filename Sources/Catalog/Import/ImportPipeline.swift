import Foundation

/// Hands batches from a producer thread to the consumer (the import's database thread), at most
/// `capacity` batches ahead, so that parsing a playlist and writing it into SQLite run on two
/// cores at once while memory stays bounded.
final class ImportPipeline<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [Element] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var producerDone = false
    private let capacity: Int

    init(capacity: Int = 4) {
        self.capacity = capacity
    }

    /// Runs `produce` on a new thread; what it passes to `emit` arrives at `consume`, in order,
    /// on the calling thread. An error on either side stops both, and is rethrown here once the
    /// producer has finished (so nothing outlives the call).
    static func run(
        capacity: Int = 4,
        produce: @escaping @Sendable (_ emit: (Element) throws -> Void) throws -> Void,
        consume: (Element) throws -> Void
    ) throws {
        let pipeline = ImportPipeline(capacity: capacity)
        let thread = Thread {
            do {
                try produce { batch in try pipeline.put(batch) }
                pipeline.finish(nil)
            } catch {
                pipeline.finish(error)
            }
        }
        thread.stackSize = 4 << 20
        thread.start()
        do {
            while let batch = try pipeline.take() {
                try consume(batch)
            }
            pipeline.waitForProducer()
        } catch {
            pipeline.cancel()
            pipeline.waitForProducer()
            throw error
        }
    }

    private func put(_ batch: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        batches.append(batch)
        condition.broadcast()
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        producerDone = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; `nil` once the producer is done; throws the producer's error.
    private func take() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !finished { condition.wait() }
        if !batches.isEmpty {
            let batch = batches.removeFirst()
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    private func cancel() {
        condition.lock()
        cancelled = true
        batches.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func waitForProducer() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
