import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

extension MediaCache {
    /// Fetches a missing range with `Range` and `If-Range`, so a changed resource is detected
    /// instead of its new bytes being mixed with the old ones.
    func startGapFetch(
        entry: ResourceEntry, id: Int, range: Range<Int64>, meta: ResourceMeta, generation: Int, logger: Logger
    ) {
        let url = entry.url
        // Shared by every reader of the entry, so it outlives the one that started it: the
        // entry keeps it (`setTask`) and the cache cancels and awaits it at shutdown.
        let task = Task { [self] in
            do {
                guard let origin = URL(string: url) else { throw MediaCacheError.invalidURL(url) }
                var extra = [("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
                if let validator = meta.ifRangeValidator { extra.append(("If-Range", validator)) }
                let response = try await upstream.send(
                    url: origin, headers: upstreamHeaders(for: entry), extraHeaders: extra)
                guard response.status == 200 || response.status == 206 else {
                    throw await UpstreamClient.errorResponse(response)
                }
                let layout = ResponseLayout(status: response.status, headers: response.headers)
                guard let newMeta = layout.meta else {
                    throw MediaCacheError.badResponse("no length in an answer to a range request")
                }
                guard newMeta.isSameVersion(as: meta) else {
                    // The origin has a new version: forget the old bytes; readers of the old
                    // version fail instead of receiving a mix, and new requests start over.
                    logger.info(
                        "origin resource changed; dropping cached bytes",
                        metadata: ["url": "\(SecretRedactor.redactURL(url))"])
                    try await index.replaceResource(
                        key: entry.key, url: url, finalURL: response.finalURL.absoluteString, meta: newMeta,
                        keepSpans: false)
                    if case (.replaced(_, _, let dropped), _) = try entry.adopt(
                        meta: newMeta, url: url, finalURL: response.finalURL.absoluteString)
                    {
                        addDurableBytes(-dropped)
                    }
                    throw MediaCacheError.resourceChanged
                }
                if response.status == 206 && layout.bodyStart != range.lowerBound {
                    throw MediaCacheError.badResponse(
                        "asked for bytes from \(range.lowerBound), got them from \(layout.bodyStart)")
                }
                if response.status == 200 {
                    // The origin ignored Range and sends everything from byte 0: this one fetch
                    // fills the whole file, and readers wait for it instead of each starting another.
                    // When another whole body is already on its way, this one is dropped unread.
                    guard entry.noteWholeBody(fetch: id, askedForRange: true) else {
                        entry.didFinish(fetch: id, error: nil)
                        return
                    }
                } else {
                    entry.noteHonoursRanges()
                }
                guard let file = entry.currentFile(generation: generation) else {
                    throw MediaCacheError.resourceChanged
                }
                guard hasDiskRoom() else {
                    throw MediaCacheError.diskFull(
                        directory: configuration.directory, reserve: configuration.minimumFreeDiskBytes)
                }
                try await writeBody(
                    response, entry: entry, id: id, generation: generation, file: file, meta: meta,
                    start: layout.bodyStart, logger: logger)
                entry.didFinish(fetch: id, error: nil)
                evictIfOverLimits()
            } catch {
                finishWithError(entry: entry, id: id, error: error, logger: logger)
            }
        }
        entry.setTask(task, for: id)
    }

    /// Writes the body of the probe's response (already open) into the cache.
    func startFetchTask(
        entry: ResourceEntry, id: Int, generation: Int, file: DataFile, meta: ResourceMeta, response: UpstreamResponse,
        layout: ResponseLayout, logger: Logger
    ) {
        // Owned like a gap fetch (see `startGapFetch`): by the entry, cancelled by the cache.
        let task = Task { [self] in
            do {
                try await writeBody(
                    response, entry: entry, id: id, generation: generation, file: file, meta: meta,
                    start: layout.bodyStart, logger: logger)
                entry.didFinish(fetch: id, error: nil)
                evictIfOverLimits()
            } catch {
                finishWithError(entry: entry, id: id, error: error, logger: logger)
            }
        }
        entry.setTask(task, for: id)
    }

    private func finishWithError(entry: ResourceEntry, id: Int, error: any Error, logger: Logger) {
        if error is CancellationError || Task.isCancelled {
            entry.didFinish(fetch: id, error: nil)
            return
        }
        let reported = (error as? MediaCacheError) ?? MediaCacheError.transport(error)
        if reported.kind == .upstream {
            recordError(url: entry.url, error: reported)
        }
        logger.info(
            "fetch failed",
            metadata: [
                "url": "\(SecretRedactor.redactURL(entry.url))", "error": "\(SecretRedactor.redact("\(reported)"))",
            ])
        entry.didFinish(fetch: id, error: reported)
    }

    func upstreamHeaders(for entry: ResourceEntry) -> [(String, String)] {
        entry.upstreamHeaders
    }

    /// Copies an origin body into the data file, waking readers after every chunk and recording
    /// spans in the index only after the bytes are synced.
    private func writeBody(
        _ response: UpstreamResponse, entry: ResourceEntry, id: Int, generation: Int, file: DataFile,
        meta: ResourceMeta,
        start: Int64, logger: Logger
    ) async throws {
        var offset = start
        var unsyncedFrom = start
        // One sync at a time runs beside the download: the disk flushes the last 16 MiB while the
        // next arrive. It claims only bytes written before it started, so the order (write, sync,
        // then index) holds; the next sync waits for it, so spans reach the index in order.
        var pendingSync: Task<Void, any Error>?
        do {
            for try await chunk in response.body {
                guard entry.shouldContinue(fetch: id, at: offset) else { break }
                var chunk = chunk
                // An origin that sends more than the length it announced: keep only what fits.
                let room = meta.length - offset
                if room <= 0 { break }
                if Int64(chunk.readableBytes) > room {
                    chunk = chunk.getSlice(at: chunk.readerIndex, length: Int(room))!
                }
                let count = Int64(chunk.readableBytes)
                try file.write(chunk, at: offset)
                counters.withLock { $0.originBytes += count }
                entry.didWrite(fetch: id, range: offset..<(offset + count), generation: generation, buffer: chunk)
                offset += count
                if offset - unsyncedFrom >= configuration.syncInterval {
                    guard hasDiskRoom() else {
                        throw MediaCacheError.diskFull(
                            directory: configuration.directory, reserve: configuration.minimumFreeDiskBytes)
                    }
                    if let previous = pendingSync { try await previous.value }
                    let range = unsyncedFrom..<offset
                    // Outlives this loop turn; every path below awaits it before returning.
                    pendingSync = Task {
                        try await self.commitOffThread(entry: entry, file: file, range: range, generation: generation)
                    }
                    unsyncedFrom = offset
                }
            }
        } catch {
            // Keep what arrived intact before the failure.
            if let previous = pendingSync { _ = try? await previous.value }
            try? commit(entry: entry, file: file, range: unsyncedFrom..<offset, generation: generation)
            throw error
        }
        if let previous = pendingSync {
            do {
                try await previous.value
            } catch {
                try? commit(entry: entry, file: file, range: unsyncedFrom..<offset, generation: generation)
                throw error
            }
        }
        try commit(entry: entry, file: file, range: unsyncedFrom..<offset, generation: generation)
    }

    /// Where blocking syncs run, so they never hold one of Swift's few cooperative threads.
    private static let syncQueue = DispatchQueue(label: "tuner.cache.sync", attributes: .concurrent)

    /// ``commit(entry:file:range:generation:)`` on a thread of its own.
    private func commitOffThread(entry: ResourceEntry, file: DataFile, range: Range<Int64>, generation: Int)
        async throws
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.syncQueue.async {
                do {
                    try self.commit(entry: entry, file: file, range: range, generation: generation)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Syncs the data file, then records the synced range in the index: the order that makes a
    /// crash at any moment leave an index that claims only bytes that are on disk.
    private func commit(entry: ResourceEntry, file: DataFile, range: Range<Int64>, generation: Int) throws {
        guard !range.isEmpty else { return }
        try file.sync()
        let before = entry.snapshot.durableBytes
        guard let (spans, meta) = entry.didSync(range: range, generation: generation) else { return }
        guard try index.saveSpans(key: entry.key, spans: spans, meta: meta) else { return }
        addDurableBytes(spans.count - before)
        evictIfOverLimits()
    }
}
