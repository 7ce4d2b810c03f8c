import Foundation

/// Hands batches from a producer thread to the consumer (the import's database thread, or an
/// async PostgreSQL `COPY`), at most `capacity` batches ahead, so that parsing a playlist or guide
/// and writing it into the database run on two cores at once while memory stays bounded.
final class ImportPipeline<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [Element] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var producerDone = false
    /// The async consumer, suspended until a batch arrives or the producer ends; resumed outside
    /// the lock. Only ``stream(capacity:produce:consume:)`` sets it, and only one at a time.
    private var waiter: CheckedContinuation<Void, Never>?
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
        let pipeline = ImportPipeline.started(capacity: capacity, produce: produce)
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

    /// Runs `produce` on a new thread like ``run(capacity:produce:consume:)``, and gives `consume`
    /// a function that awaits the next batch (`nil` at the end) without holding a thread: for an
    /// async writer such as a PostgreSQL `COPY`. An error on either side stops both; the producer
    /// has finished when this returns or throws (a consumer that returns early cancels it).
    static func stream<Result>(
        capacity: Int = 4,
        produce: @escaping @Sendable (_ emit: (Element) throws -> Void) throws -> Void,
        consume: (_ next: () async throws -> Element?) async throws -> Result
    ) async throws -> Result {
        let pipeline = ImportPipeline.started(capacity: capacity, produce: produce)
        do {
            let result = try await consume { try await pipeline.next() }
            pipeline.cancel()
            await pipeline.producerFinished()
            return result
        } catch {
            pipeline.cancel()
            await pipeline.producerFinished()
            throw error
        }
    }

    private static func started(
        capacity: Int, produce: @escaping @Sendable (_ emit: (Element) throws -> Void) throws -> Void
    ) -> ImportPipeline {
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
        return pipeline
    }

    private func put(_ batch: Element) throws {
        condition.lock()
        while batches.count >= capacity && !cancelled { condition.wait() }
        if cancelled {
            condition.unlock()
            throw CancellationError()
        }
        batches.append(batch)
        condition.broadcast()
        let waiter = self.waiter
        self.waiter = nil
        condition.unlock()
        waiter?.resume()
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        finished = true
        producerDone = true
        failure = error
        condition.broadcast()
        let waiter = self.waiter
        self.waiter = nil
        condition.unlock()
        waiter?.resume()
    }

    /// The next batch for the async consumer; `nil` once the producer is done; throws its error.
    private func next() async throws -> Element? {
        while true {
            switch try poll() {
            case .batch(let batch): return batch
            case .end: return nil
            case .wait: await suspend { !$0.batches.isEmpty || $0.finished }
            }
        }
    }

    private enum Poll {
        case batch(Element)
        case end
        case wait
    }

    /// What the async consumer finds now: a batch, the end, or nothing yet.
    private func poll() throws -> Poll {
        condition.lock()
        defer { condition.unlock() }
        if !batches.isEmpty {
            let batch = batches.removeFirst()
            condition.broadcast()
            return .batch(batch)
        }
        guard finished else { return .wait }
        if let failure { throw failure }
        return .end
    }

    /// Waits, without holding a thread, until the producer thread has returned.
    private func producerFinished() async {
        await suspend { $0.producerDone }
    }

    /// Suspends the async consumer until the next change, unless `ready` already holds.
    private func suspend(until ready: (ImportPipeline) -> Bool) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            condition.lock()
            if ready(self) {
                condition.unlock()
                waiter.resume()
            } else {
                self.waiter = waiter
                condition.unlock()
            }
        }
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
