import AsyncHTTPClient
import Crypto
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Downloads one file over HTTP(S) into `<data>/downloads/`, resumable and verified.
///
/// Bytes go to `<name>.partial` through a `DownloadWriter` (written, with O_DIRECT where it can,
/// and hashed beside the receiving task, in batches of `tuning.writeBufferBytes`). Every `tuning.syncBytes` or
/// `tuning.syncInterval` the file is synced (off the cooperative pool, overlapping the next
/// writes) and only then is the offset committed. A resume sends `Range` with `If-Range` (the
/// strong ETag, else Last-Modified); a 200 to it (Range ignored or resource changed), or a 206
/// from another version, restarts from byte 0 and records why. Completion needs the length the
/// server declared (and the SHA-256 when one was given); then the file is synced and linked into
/// place under a name no other file has, so a finished download is never replaced or half-written.
public struct FileDownloadExecutor: TransferExecutor {
    public let httpClient: HTTPClient
    public var userAgent: String
    let directorySyncs = DirectorySyncs()

    public init(httpClient: HTTPClient, userAgent: String = "Tuner") {
        self.httpClient = httpClient
        self.userAgent = userAgent
    }

    /// One group-committing syncer per downloads directory.
    final class DirectorySyncs: Sendable {
        private let syncs = Mutex<[String: DirectorySync]>([:])

        func sync(_ path: String) async {
            let sync = syncs.withLock { syncs in
                if let existing = syncs[path] { return existing }
                let created = DirectorySync(path: path)
                syncs[path] = created
                return created
            }
            await sync.sync()
        }
    }

    /// A client for downloads, uploads and imports: leaves bodies undecoded, gives up on connecting
    /// after 10 s (stalls are the manager's job, so there is no read timeout), and follows no
    /// redirect itself: callers follow them by hand through Fetching's gate, which checks each hop.
    public static func makeHTTPClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)))
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public var kinds: [TransferKind] { [.downloadFile] }

    static func partialPath(_ task: TransferTask, _ context: TransferContext) -> String {
        context.downloadsDirectory + "/" + task.destinationName + ".partial"
    }

    public func discard(_ task: TransferTask, context: TransferContext) async throws {
        let path = Self.partialPath(task, context)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    public func deleteResult(_ task: TransferTask, context: TransferContext) async throws {
        let path = context.downloadsDirectory + "/" + task.destinationName
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    public func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
        if let done = try finishedBeforeRestart(task, context: context) { return done }
        var download = try Download(task: task, context: context, executor: self)
        defer { download.file.close() }
        return try await download.run()
    }

    /// A crash between linking the finished file into place and recording completion leaves the
    /// record active with its final name in `properties`: that file is the result.
    private func finishedBeforeRestart(_ task: TransferTask, context: TransferContext) throws -> TransferOutcome? {
        guard let finalName = task.properties["finalName"], let total = task.totalBytes, task.committedBytes == total
        else { return nil }
        let finalPath = context.downloadsDirectory + "/" + finalName
        let partialPath = Self.partialPath(task, context)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: finalPath),
            (attributes[.size] as? NSNumber)?.int64Value == total
        else { return nil }
        if let expected = task.expectedSHA256 {
            guard try Self.sha256(ofFile: finalPath) == expected else { return nil }
        }
        try? FileManager.default.removeItem(atPath: partialPath)
        return TransferOutcome(resultName: finalName, bytes: total)
    }

    static func sha256(ofFile path: String) throws -> String {
        let file = try PartialFile(path: path, create: false)
        defer { file.close() }
        var hasher = SHA256()
        var offset: Int64 = 0
        while true {
            let chunk = try file.read(count: 1 << 20, at: offset)
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
            offset += Int64(chunk.count)
        }
        return hasher.finalize().hexString
    }
}

/// One run of a file download: the partial file, the offsets and the request loop.
private struct Download {
    let task: TransferTask
    let context: TransferContext
    let executor: FileDownloadExecutor
    let file: PartialFile
    var committed: Int64
    var total: Int64?
    var etag: String?
    var lastModified: String?
    var hasher: SHA256?
    var restarts = 0

    init(task: TransferTask, context: TransferContext, executor: FileDownloadExecutor) throws {
        self.task = task
        self.context = context
        self.executor = executor
        file = try PartialFile(path: FileDownloadExecutor.partialPath(task, context))
        committed = task.committedBytes
        total = task.totalBytes
        etag = task.etag
        lastModified = task.lastModified
    }

    var checkpoint: TransferCheckpoint {
        TransferCheckpoint(committedBytes: committed, totalBytes: total, etag: etag, lastModified: lastModified)
    }

    mutating func run() async throws -> TransferOutcome {
        try await checkPartialFile()
        if task.expectedSHA256 != nil { try hashPrefix() }
        while true {
            try Task.checkCancellation()
            if let outcome = try await attempt() { return outcome }
        }
    }

    /// The partial file against the committed offset: bytes past it were never confirmed (cut
    /// them); a file shorter than it lost synced data somehow (resume from what is there).
    private mutating func checkPartialFile() async throws {
        let size = try file.size
        if size > committed {
            try file.truncate(to: committed)
        } else if size < committed {
            let recorded = committed
            committed = size
            try await context.commit(
                checkpoint,
                note: "the partial file had \(size) of \(recorded) committed bytes; resuming from byte \(size)")
        }
    }

    private mutating func hashPrefix() throws {
        var hasher = SHA256()
        var offset: Int64 = 0
        while offset < committed {
            let chunk = try file.read(count: Int(min(Int64(1 << 20), committed - offset)), at: offset)
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
            offset += Int64(chunk.count)
        }
        self.hasher = hasher
    }

    /// Truncates to 0 and commits that (durably) before any byte of the new version is written.
    private mutating func restart(
        _ reason: String, etag newETag: String?, lastModified newLastModified: String?, total newTotal: Int64?
    ) async throws {
        restarts += 1
        try file.truncate(to: 0)
        committed = 0
        etag = newETag
        lastModified = newLastModified
        total = newTotal
        if task.expectedSHA256 != nil { hasher = SHA256() }
        try await context.commit(checkpoint, note: "restarted from byte 0: \(reason)")
        context.logger.info("download restarted from byte 0", metadata: ["reason": "\(reason)"])
    }

    /// One request. Returns the outcome when the file is complete, nil to send another request
    /// (after a restart), throws on failure.
    private mutating func attempt() async throws -> TransferOutcome? {
        guard restarts < 4 else {
            throw TransferError.transient(
                "the server keeps changing the file or refusing ranges; restarted \(restarts) times in one attempt")
        }
        var request = HTTPClientRequest(url: task.sourceURL)
        request.headers.add(name: "User-Agent", value: executor.userAgent)
        for header in task.headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        request.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        if committed > 0 {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(committed)-")
            if let validator = IfRange.validator(etag: etag, lastModified: lastModified) {
                request.headers.replaceOrAdd(name: "If-Range", value: validator)
            }
        }
        let response: HTTPClientResponse
        do {
            response = try await executor.httpClient.execute(
                request, gate: context.fetchGate, timeout: .hours(1), logger: context.logger
            ).response
        } catch let error as FetchError {
            throw TransferError.permanent("\(error)")
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw TransferError.transient("cannot reach the server: \(error)")
        }
        let status = Int(response.status.code)
        let newETag = response.headers.first(name: "ETag")
        let newLastModified = response.headers.first(name: "Last-Modified")
        let contentLength = response.headers.first(name: "Content-Length").flatMap { HeaderNumber.nonNegative($0) }

        switch status {
        case 206:
            guard let range = ContentRange(response.headers.first(name: "Content-Range") ?? "") else {
                try await restart("the server's Content-Range was unreadable", etag: nil, lastModified: nil, total: nil)
                return nil
            }
            if range.first != committed {
                try await restart(
                    "the server sent bytes from \(range.first ?? -1) instead of \(committed)", etag: nil,
                    lastModified: nil, total: nil)
                return nil
            }
            if let etag, let newETag, etag != newETag {
                try await restart(
                    "the resource changed (ETag \(etag) → \(newETag))", etag: nil, lastModified: nil, total: nil)
                return nil
            }
            total = range.total ?? total
            if etag == nil { etag = newETag }
            if lastModified == nil { lastModified = newLastModified }
        case 200:
            if committed > 0 {
                let changed =
                    (etag != nil && newETag != nil && etag != newETag)
                    || (etag == nil && lastModified != nil && newLastModified != nil && lastModified != newLastModified)
                let reason =
                    changed
                    ? "the resource changed (\(etag ?? lastModified ?? "") → \(newETag ?? newLastModified ?? ""))"
                    : "the server ignored the Range request (200 instead of 206)"
                // The 200's body is the whole file: use it instead of asking again.
                try await restart(reason, etag: newETag, lastModified: newLastModified, total: contentLength)
            } else {
                etag = newETag
                lastModified = newLastModified
                total = contentLength
            }
        case 416:
            let range = ContentRange(response.headers.first(name: "Content-Range") ?? "")
            let sameVersion = etag == nil || newETag == nil || etag == newETag
            if let length = range?.total, length == committed, committed > 0, sameVersion {
                // Everything is here already (an earlier answer declared a wrong length).
                total = length
                return try await complete()
            }
            try await restart(
                "the server could not serve the remaining range (416)", etag: nil, lastModified: nil, total: nil)
            return nil
        default:
            if committed == 0 {
                // Nothing was ever received: leave no empty partial file behind a failed task.
                unlink(file.path)
            }
            let retryAfter = response.headers.first(name: "Retry-After").flatMap {
                RetryPolicy.parseRetryAfter($0, now: Date())
            }
            throw TransferError.classify(status: status, retryAfter: retryAfter)
        }

        try checkDiskRoom()
        try await receive(response.body)
        return try await complete()
    }

    /// Refuses (permanently: retrying will not free space) a download whose remaining bytes
    /// would leave less than the reserve free.
    private func checkDiskRoom() throws {
        guard let total, total > committed, let free = PartialFile.freeDiskBytes(at: context.downloadsDirectory) else {
            return
        }
        let needed = total - committed
        let reserve = context.tuning.minimumFreeDiskBytes
        if free - needed < reserve {
            throw TransferError.permanent(
                """
                the download needs \(needed) more bytes but the disk has \(free) free (keeping \(reserve) in \
                reserve); free some space, then retry
                """
            )
        }
    }

    /// Streams the body into the file (through a `DownloadWriter`, which writes and hashes beside
    /// this task), committing synced offsets on the way. On any failure it commits what is
    /// written and synced, then rethrows.
    private mutating func receive(_ body: HTTPClientResponse.Body) async throws {
        let tuning = context.tuning
        if task.expectedSHA256 != nil && hasher == nil { try hashPrefix() }
        let writer = DownloadWriter(
            file: file, offset: committed, hasher: hasher,
            batchBytes: tuning.writeBufferBytes, maximumBytesInFlight: 8 * tuning.writeBufferBytes,
            expectedBytes: total.map { $0 - committed })
        var pendingSync: (task: Task<Void, any Error>, offset: Int64)?
        var lastSyncStart = Date()
        var lastSyncOffset = committed
        let declaredTotal = total

        do {
            for try await chunk in body {
                if let declaredTotal, writer.receivedEnd + Int64(chunk.readableBytes) > declaredTotal {
                    throw TransferError.transient("the server sent more bytes than the \(declaredTotal) it declared")
                }
                try await writer.append(chunk)
                let received = writer.receivedEnd
                context.progress(bytes: received, total: total)
                let unsynced = received - lastSyncOffset
                if unsynced >= tuning.syncBytes
                    || (unsynced > 0 && Date().timeIntervalSince(lastSyncStart) >= tuning.syncInterval)
                {
                    // At a size step only full batches are written, so the next ones stay aligned
                    // for O_DIRECT; at a time step (a slow body) the partial batch goes too.
                    let offset =
                        unsynced >= tuning.syncBytes ? try await writer.drainSubmitted() : try await writer.drain()
                    // The previous sync ran while these bytes arrived; commit it, start the next.
                    if let pending = pendingSync {
                        try await pending.task.value
                        committed = pending.offset
                        try await context.commit(checkpoint)
                    }
                    let file = self.file
                    // Not a child task: it must outlive this loop turn. Every path (the next
                    // step, the end, the catch below) awaits it before the run returns.
                    pendingSync = (Task { try await file.syncOffPool() }, offset)
                    lastSyncStart = Date()
                    lastSyncOffset = offset
                }
            }
            // Nothing more to receive: the next download may start while these bytes reach the disk.
            if !Task.isCancelled { context.releaseSlot() }
            // The last bytes are written and the file synced in one step on the writer's queue;
            // a periodic sync still running covers only earlier bytes, so it may end later.
            let written = try await writer.drainAndSync()
            if let pending = pendingSync { try await pending.task.value }
            pendingSync = nil
            // Synced; `complete()` commits this offset together with the final name, saving a
            // store write per file (it matters for many small files).
            committed = written
            if hasher != nil { hasher = await writer.finishHashing() }
        } catch {
            // Keep what is safely on disk so the next attempt resumes there.
            _ = try? await writer.drain()
            let written = writer.writtenEnd
            if let pending = pendingSync { _ = try? await pending.task.value }
            if (try? await file.syncOffPool()) != nil {
                committed = written
                try? await context.commit(checkpoint)
            }
            // The checksum state is reusable only when it covers exactly the committed bytes;
            // otherwise the next attempt hashes the committed prefix again from the file.
            if hasher != nil {
                hasher = writer.receivedEnd == committed ? await writer.finishHashing() : nil
            }
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            if let error = error as? TransferError { throw error }
            throw TransferError.transient("the connection broke after \(writer.receivedEnd) bytes: \(error)")
        }
        // A body that ended because the run was cancelled is not an end of file.
        if Task.isCancelled {
            try? await context.commit(checkpoint)
            throw CancellationError()
        }
    }

    /// Checks length and checksum, then links the synced file into place under a free name.
    private mutating func complete() async throws -> TransferOutcome {
        let size = try file.size
        if let total, size != total {
            try? await context.commit(checkpoint)
            throw TransferError.transient("the connection closed after \(size) of \(total) bytes")
        }
        if total == nil {
            // No declared length (chunked): a clean end of the body is the end of the file.
            total = size
        }
        if let expected = task.expectedSHA256 {
            let actual: String
            if let hasher, committed == size {
                actual = hasher.finalize().hexString
            } else {
                actual = try FileDownloadExecutor.sha256(ofFile: file.path)
            }
            if actual != expected {
                try file.truncate(to: 0)
                committed = 0
                hasher = SHA256()
                try await context.commit(checkpoint, note: "checksum mismatch; partial data discarded")
                throw TransferError.permanent(
                    "checksum mismatch: expected SHA-256 \(expected), got \(actual); check the checksum or the source")
            }
        }
        let directory = context.downloadsDirectory
        let partial = file.path
        var name = task.destinationName
        var counter = 0
        while true {
            // Recorded before the link, so a crash right after it finds the file (see finishedBeforeRestart).
            committed = size
            var point = checkpoint
            point.properties["finalName"] = name
            // The next download may start now: the link and the directory sync need no slot.
            try await context.commitFinal(point)
            if try PartialFile.linkWithoutReplacing(partial, to: directory + "/" + name) { break }
            counter += 1
            name = DestinationName.unique(task.destinationName) { candidate in
                FileManager.default.fileExists(atPath: directory + "/" + candidate)
            }
            if counter > 100 {
                throw TransferError.permanent("cannot find a free file name for \(task.destinationName)")
            }
        }
        unlink(partial)
        await executor.directorySyncs.sync(directory)
        return TransferOutcome(resultName: name, bytes: size)
    }
}

extension Digest {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
