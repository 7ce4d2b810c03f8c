import Hummingbird
import Transfers
import TunerAPI
import TunerApp

extension TransferAnswer: ResponseEncodable {
    init(_ entry: Downloads.Entry) {
        self.init(entry.task, progress: entry.progress)
    }

    init(_ task: TransferTask, progress: TransferProgress?) {
        self.init(
            id: task.id, kind: task.kind.rawValue, sourceURL: task.sourceURL,
            headers: task.headers.map { Header(name: $0.name, value: $0.value) },
            destinationName: task.destinationName, priority: task.priority, position: task.position,
            state: task.state.rawValue, committedBytes: task.committedBytes, totalBytes: task.totalBytes,
            expectedSHA256: task.expectedSHA256, etag: task.etag, lastModified: task.lastModified,
            errorReason: task.errorReason, errorClass: task.errorClass?.rawValue, retryCount: task.retryCount,
            nextAttemptAt: task.nextAttemptAt,
            history: task.history.map { HistoryEntry(at: $0.at, message: $0.message) },
            properties: task.properties, createdAt: task.createdAt, updatedAt: task.updatedAt,
            progress: progress.map {
                Progress(
                    id: $0.id, bytes: $0.bytes, total: $0.total, bytesPerSecond: $0.bytesPerSecond,
                    etaSeconds: $0.etaSeconds)
            })
    }
}

extension TransferList: ResponseEncodable {}
