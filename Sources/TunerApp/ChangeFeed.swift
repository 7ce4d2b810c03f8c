import Foundation
import Synchronization

/// Fans a feature object's changes out to any number of readers (the events hub, the CLI, tests),
/// each an `AsyncStream` that keeps the newest `bufferSize` changes when its reader falls behind.
final class ChangeFeed<Change: Sendable>: Sendable {
    private let readers = Mutex<[UUID: AsyncStream<Change>.Continuation]>([:])
    private let bufferSize: Int

    init(bufferSize: Int = 256) {
        self.bufferSize = bufferSize
    }

    /// A new stream of every change from now on; it ends when the reader stops iterating.
    func subscribe() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Change.self, bufferingPolicy: .bufferingNewest(bufferSize))
        let id = UUID()
        readers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.readers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ change: Change) {
        for continuation in readers.withLock({ Array($0.values) }) { continuation.yield(change) }
    }
}
