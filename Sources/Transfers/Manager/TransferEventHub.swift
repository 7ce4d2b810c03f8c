import Foundation
import Synchronization

/// Fans the manager's events out to any number of subscribers, each with its own buffer.
///
/// A slow subscriber loses its oldest buffered events rather than slowing the manager; progress
/// is coalesced anyway and task changes carry the whole task, so the newest event is what counts.
final class TransferEventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<TransferEvent>.Continuation]>([:])
    private let bufferSize: Int

    init(bufferSize: Int = 4096) {
        self.bufferSize = bufferSize
    }

    func subscribe() -> AsyncStream<TransferEvent> {
        let (stream, continuation) = AsyncStream<TransferEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(bufferSize))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: TransferEvent) {
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    func finish() {
        let targets = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
