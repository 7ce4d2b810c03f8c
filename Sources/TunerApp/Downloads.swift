import Foundation
import MediaFormats
import Transfers
import TunerAPI

/// Downloads and uploads as the API, the CLI and the web app use them: the transfer queue behind
/// one set of checks (the fetch policy, the files root for uploads) and one error type.
///
/// Sendable and free of state of its own; ``changes()`` publishes every change of the queue.
public final class Downloads: Sendable {
    /// A task with its live progress.
    public struct Entry: Sendable, Encodable {
        public var task: TransferTask
        public var progress: TransferProgress?

        public init(task: TransferTask, progress: TransferProgress?) {
            self.task = task
            self.progress = progress
        }

        public func encode(to encoder: any Encoder) throws {
            try task.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(progress, forKey: .progress)
        }

        enum Keys: String, CodingKey { case progress }
    }

    let transfers: TransferManager
    /// Folders uploads may read from; nil trusts every path (the CLI: the user owns the files).
    let localFiles: LocalFileAccess?
    let fetchPolicy: FetchPolicy

    public init(transfers: TransferManager, localFiles: LocalFileAccess?, fetchPolicy: FetchPolicy = .any) {
        self.transfers = transfers
        self.localFiles = localFiles
        self.fetchPolicy = fetchPolicy
    }

    /// Every change of the queue from now on: added, changed, progress, removed.
    public func changes() -> AsyncStream<TransferEvent> {
        transfers.events()
    }

    public func list() async -> [Entry] {
        var entries: [Entry] = []
        for task in await transfers.list() {
            entries.append(Entry(task: task, progress: await transfers.progress(id: task.id)))
        }
        return entries
    }

    public func entry(id: Int64) async throws(FeatureError) -> Entry {
        guard let task = await transfers.task(id: id) else {
            throw FeatureError(.notFound, TransferError.noTask(id).description)
        }
        return Entry(task: task, progress: await transfers.progress(id: id))
    }

    /// Queues the transfers, all or none. Uploads read only from the allowed folders; every remote
    /// URL must be one the fetch policy permits.
    public func add(_ items: [AddTransferRequest]) async throws(FeatureError) -> [TransferTask] {
        guard !items.isEmpty else { throw FeatureError(.invalid, "no transfers given") }
        var requests: [TransferRequest] = []
        for item in items {
            let kind = TransferKind(rawValue: item.kind ?? TransferKind.downloadFile.rawValue)
            let isUpload = kind == .uploadTus || kind == .uploadPlain
            var source = item.url
            if let remote = isUpload ? item.properties?["destinationURL"] : item.url { try permit(remote) }
            if isUpload, let localFiles {
                do {
                    source = try localFiles.fileToRead(item.url)
                } catch {
                    throw FeatureError(.forbidden, "\(error)")
                }
            }
            requests.append(
                TransferRequest(
                    kind: kind, sourceURL: source,
                    headers: (item.headers ?? [:]).sorted { $0.key < $1.key }.map {
                        TransferHeader(name: $0.key, value: $0.value)
                    },
                    destinationName: item.name, priority: item.priority ?? 0, position: item.position,
                    expectedSHA256: item.sha256, paused: item.paused ?? false, properties: item.properties ?? [:]))
        }
        return try await mapped { try await transfers.add(requests) }
    }

    /// Pauses, resumes, retries, cancels, moves or re-points one transfer; answers it as it is then.
    public func change(id: Int64, _ change: ChangeTransferRequest) async throws(FeatureError) -> Entry {
        let transfers = transfers
        try await mapped {
            switch change.action {
            case "pause": try await transfers.pause(id: id)
            case "resume": try await transfers.resume(id: id)
            case "retry": try await transfers.retry(id: id)
            case "cancel": try await transfers.cancel(id: id)
            case "position":
                guard let position = change.position, position >= 0 else {
                    throw TransferError.invalidRequest(
                        "the position action needs \"position\": a whole number from 0")
                }
                try await transfers.move(id: id, to: position)
            case "url":
                guard let url = change.url else {
                    throw TransferError.invalidRequest("the url action needs \"url\"")
                }
                try permit(url)
                try await transfers.changeSource(id: id, to: url)
            default:
                throw TransferError.invalidRequest(
                    "unknown action '\(change.action)'; use pause, resume, retry, cancel, position or url")
            }
        }
        return try await entry(id: id)
    }

    public func delete(id: Int64) async throws(FeatureError) {
        try await mapped { try await transfers.delete(id: id) }
    }

    public func pauseAll() async { await transfers.pauseAll() }

    public func resumeAll() async { await transfers.resumeAll() }

    /// Removes finished tasks from the list; answers how many.
    public func purgeFinished() async throws(FeatureError) -> Int {
        try await mapped { try await transfers.purgeFinished() }
    }

    /// Refuses a URL the server may not connect to (`--allow-fetch`).
    func permit(_ text: String) throws(FeatureError) {
        guard fetchPolicy != .any else { return }
        guard let url = URL(string: text), fetchPolicy.permits(url) else {
            throw FeatureError(.forbidden, fetchPolicy.refusal(text))
        }
    }

    private func mapped<T>(_ body: () async throws -> T) async throws(FeatureError) -> T {
        do {
            return try await body()
        } catch let error as FeatureError {
            throw error
        } catch let error as TransferError {
            throw FeatureError(error)
        } catch {
            throw FeatureError(.failed, "the transfer queue could not be changed: \(error)", cause: error)
        }
    }
}
