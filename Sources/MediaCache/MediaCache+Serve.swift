import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

extension MediaCache {
    /// Answers a player's request: from disk where the bytes are cached, from the origin (once,
    /// shared) where they are not. Never throws: failures become HTTP answers (502, 504, the
    /// origin's own status).
    public func serve(_ request: MediaRequest) async -> MediaResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            request.url.host != nil
        else {
            return .error(status: 400, message: "only http and https URLs can be proxied")
        }
        if request.storage == .passthrough {
            switch await openUpstream(request, range: request.range, logger: logger(for: request)) {
            case .failure(let answer): return answer.response
            case .success(let response): return passthrough(response, head: request.method == .head)
            }
        }
        let key = cacheKey(for: request.url)
        let entry = entry(key: key, url: request.url.absoluteString)
        entry.setLatestRequest(url: request.url.absoluteString, headers: request.upstreamHeaders)

        while true {
            switch entry.metaOrProbe() {
            case .known(let meta, let generation):
                return respondFromCache(request, entry: entry, meta: meta, generation: generation, attached: [])
            case .wait(let changes):
                await entry.waitForChange(after: changes)
                if Task.isCancelled { return .error(status: 499, message: "client went away") }
            case .probe:
                return await probe(request, entry: entry, logger: logger(for: request))
            }
        }
    }

    /// The answer to a `GET` whose bytes are all in the data file (the whole of a resource, or
    /// one range of it, up to 16 MiB), made without waiting: the same status, headers and bytes
    /// ``serve(_:)`` would give, with the body read (under `fileRegionThreshold`) or as one
    /// ``MediaBody/region``. Nil when anything would wait, fetch or stream (a resource not known
    /// yet, a missing byte, several ranges, a longer body); the caller then calls ``serve(_:)``,
    /// and nothing here has had an effect that it would not repeat.
    ///
    /// For a caller that cannot wait: the server answers warm stream requests this way on the
    /// connection's event loop, without a request task.
    ///
    /// `accepting` sees the answer's status and headers (without a body) before any byte is
    /// read; false gives nil, as if the bytes were not held.
    public func serveHeld(_ request: MediaRequest, accepting: (MediaResponse) -> Bool = { _ in true })
        -> MediaResponse?
    {
        guard request.method == .get, request.storage == .cache,
            let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            request.url.host != nil
        else { return nil }
        let key = cacheKey(for: request.url)
        guard let entry = existingEntry(key: key), let (meta, generation) = entry.knownMeta() else { return nil }
        entry.setLatestRequest(url: request.url.absoluteString, headers: request.upstreamHeaders)
        return withoutActuallyEscaping(accepting) { accepting in
            respondFromCache(
                request, entry: entry, meta: meta, generation: generation, attached: [], heldOnly: accepting)
        }
    }

    /// Asks the origin for a resource whose length is not known yet, with the client's own range.
    /// A cacheable answer becomes the first fetch of the resource; anything else streams through.
    /// An error answer, as a type so it can travel in a `Result`.
    struct Answer: Error {
        let response: MediaResponse
    }

    /// Sends a request upstream; a transport failure or a non-success status becomes the answer
    /// for the client (recorded in the statistics).
    func openUpstream(_ request: MediaRequest, range: String?, logger: Logger) async -> Result<UpstreamResponse, Answer>
    {
        let extra: [(String, String)] = range.map { [("Range", $0)] } ?? []
        let response: UpstreamResponse
        do {
            response = try await upstream.send(
                url: request.url, method: request.method == .head ? .HEAD : .GET, headers: request.upstreamHeaders,
                extraHeaders: extra)
        } catch {
            let upstreamError = MediaCacheError.transport(error)
            recordError(url: request.url.absoluteString, error: upstreamError)
            logger.info(
                "origin request failed",
                metadata: [
                    "url": "\(SecretRedactor.redactURL(request.url.absoluteString))",
                    "error": "\(SecretRedactor.redact("\(upstreamError)"))",
                ])
            return .failure(Answer(response: .error(status: upstreamError.status, message: upstreamError.description)))
        }
        guard response.status == 200 || response.status == 206 else {
            let upstreamError =
                request.method == .head
                ? MediaCacheError.originStatus(response.status, headers: response.headers, body: nil)
                : await UpstreamClient.errorResponse(response)
            recordError(url: request.url.absoluteString, error: upstreamError)
            return .failure(Answer(response: passthroughError(upstreamError, head: request.method == .head)))
        }
        return .success(response)
    }

    /// Asks the origin for a resource whose length is not known yet, with the client's own range.
    /// A cacheable answer becomes the first fetch of the resource; anything else streams through.
    private func probe(_ request: MediaRequest, entry: ResourceEntry, logger: Logger) async -> MediaResponse {
        let range = ByteRangeRequest(headerValue: request.range ?? "")
        let single = range.flatMap { $0.ranges.count == 1 ? $0.ranges[0].headerValue : nil }
        let response: UpstreamResponse
        switch await openUpstream(request, range: single, logger: logger) {
        case .failure(let answer):
            entry.endProbe()
            return answer.response
        case .success(let opened):
            response = opened
        }
        let layout = ResponseLayout(status: response.status, headers: response.headers)
        guard request.method == .get, let meta = layout.meta, configuration.isCacheable(contentType: meta.contentType),
            meta.length <= configuration.maxBytes
        else {
            entry.endProbe()
            if request.method == .get {
                logger.debug(
                    "streaming through uncached",
                    metadata: ["url": "\(SecretRedactor.redactURL(request.url.absoluteString))"])
            }
            return passthrough(response, head: request.method == .head)
        }
        guard hasDiskRoom() else {
            // The player still gets its bytes; the disk keeps its reserve.
            entry.endProbe()
            logger.warning(
                "disk below the cache's free reserve; streaming through uncached",
                metadata: [
                    "directory": "\(configuration.directory)", "reserve": "\(configuration.minimumFreeDiskBytes)",
                ])
            return passthrough(response, head: false)
        }
        do {
            let same = entry.meta.map { $0.isSameVersion(as: meta) } ?? false
            try await index.replaceResource(
                key: entry.key, url: request.url.absoluteString, finalURL: response.finalURL.absoluteString, meta: meta,
                keepSpans: same)
            let (adoption, fetchID) = try entry.adopt(
                meta: meta, url: request.url.absoluteString, finalURL: response.finalURL.absoluteString,
                fetchFrom: layout.bodyStart)
            let (file, generation): (DataFile, Int)
            switch adoption {
            case .gone:
                return passthrough(response, head: false)
            case .same(let f, let g):
                (file, generation) = (f, g)
            case .replaced(let f, let g, let dropped):
                (file, generation) = (f, g)
                addDurableBytes(-dropped)
            }
            guard let id = fetchID else { return passthrough(response, head: false) }
            if response.status == 200 {
                // The whole body; asked for a range, sent everything: this origin ignores Range
                // (see noteWholeBody). A whole body already on its way makes this one redundant.
                guard entry.noteWholeBody(fetch: id, askedForRange: single != nil) else {
                    entry.didFinish(fetch: id, error: nil)
                    return respondFromCache(request, entry: entry, meta: meta, generation: generation, attached: [])
                }
            } else {
                entry.noteHonoursRanges()
            }
            startFetchTask(
                entry: entry, id: id, generation: generation, file: file, meta: meta, response: response,
                layout: layout, logger: logger)
            return respondFromCache(request, entry: entry, meta: meta, generation: generation, attached: [id])
        } catch {
            entry.endProbe()
            logger.error("cache could not store a resource; streaming through", metadata: ["error": "\(error)"])
            return passthrough(response, head: false)
        }
    }

    // MARK: - Responses

    private func respondFromCache(
        _ request: MediaRequest, entry: ResourceEntry, meta: ResourceMeta, generation: Int, attached: Set<Int>
    ) -> MediaResponse {
        // Without `heldOnly` every path gives an answer.
        respondFromCache(
            request, entry: entry, meta: meta, generation: generation, attached: attached, heldOnly: nil)
            ?? .error(status: 500, message: "the cache gave no answer")
    }

    /// The answer from the data file. With `heldOnly`, nil where the answer would not be a body
    /// read now (see ``serveHeld(_:accepting:)``) or `heldOnly` refuses its head, before anything
    /// is changed.
    private func respondFromCache(
        _ request: MediaRequest, entry: ResourceEntry, meta: ResourceMeta, generation: Int, attached: Set<Int>,
        heldOnly: ((MediaResponse) -> Bool)?
    ) -> MediaResponse? {
        var headers = HTTPHeaders()
        headers.add(name: "Accept-Ranges", value: "bytes")
        if let etag = meta.etag { headers.add(name: "ETag", value: etag) }
        if let lastModified = meta.lastModified { headers.add(name: "Last-Modified", value: lastModified) }
        let contentType = meta.contentType ?? "application/octet-stream"

        var rangeRequest = request.range.flatMap(ByteRangeRequest.init(headerValue:))
        // If-Range that does not match the current version means "send it all" (RFC 9110 §13.1.5).
        if let ifRange = request.ifRange, ifRange != meta.etag && ifRange != meta.lastModified { rangeRequest = nil }
        let ranges = rangeRequest?.resolve(length: meta.length)
        let isHead = request.method == .head

        if let ranges, ranges.isEmpty {
            if heldOnly != nil { return nil }
            entry.detach(attached)
            headers.add(name: "Content-Range", value: "bytes */\(meta.length)")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            let message = "range not satisfiable: the resource has \(meta.length) bytes\n"
            headers.add(name: "Content-Length", value: String(message.utf8.count))
            return MediaResponse(
                status: 416, headers: headers,
                body: isHead ? nil : MediaBody { try await $0.write(ByteBuffer(string: message)) })
        }

        let status: Int
        let parts: [(range: Range<Int64>, prefix: String?)]
        var trailer: String?
        if let ranges, ranges.count > 1 {
            if heldOnly != nil { return nil }
            // multipart/byteranges (RFC 9110 §14.6), with a boundary that cannot occur by accident.
            let boundary = "tuner-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
            parts = ranges.enumerated().map { index, range in
                let prefix =
                    (index == 0 ? "" : "\r\n")
                        + """
                        --\(boundary)\r\nContent-Type: \(contentType)\r\nContent-Range: bytes \
                        \(range.lowerBound)-\(range.upperBound - 1)/\(meta.length)\r\n\r\n
                        """
                return (range, prefix)
            }
            trailer = "\r\n--\(boundary)--\r\n"
            status = 206
            headers.add(name: "Content-Type", value: "multipart/byteranges; boundary=\(boundary)")
        } else if let range = ranges?.first {
            parts = [(range, nil)]
            status = 206
            headers.add(name: "Content-Type", value: contentType)
            headers.add(
                name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(meta.length)")
        } else {
            parts = [(0..<meta.length, nil)]
            status = 200
            headers.add(name: "Content-Type", value: contentType)
        }
        let closing = trailer
        let length =
            parts.reduce(Int64(0)) {
                $0 + ($1.range.upperBound - $1.range.lowerBound) + Int64($1.prefix?.utf8.count ?? 0)
            }
            + Int64(trailer?.utf8.count ?? 0)
        headers.add(name: "Content-Length", value: String(length))

        // Parsed only when it differs: most resources are not redirected, and a URL parse is a
        // measurable part of a small cached answer.
        let finalURL = entry.finalURL.flatMap { $0 == request.url.absoluteString ? request.url : URL(string: $0) }
        if isHead || length == 0 {
            if heldOnly != nil { return nil }
            entry.detach(attached)
            return MediaResponse(
                status: status, headers: headers, body: isHead ? nil : MediaBody { _ in },
                finalURL: finalURL ?? request.url)
        }
        if let heldOnly, !heldOnly(MediaResponse(status: status, headers: headers, body: nil)) { return nil }
        if attached.isEmpty, parts.count == 1, parts[0].prefix == nil, length < configuration.fileRegionThreshold,
            let bytes = readHeld(parts[0].range, entry: entry, generation: generation)
        {
            return MediaResponse(
                status: status, headers: headers, body: MediaBody(bytes: bytes), finalURL: finalURL ?? request.url)
        }
        if heldOnly != nil {
            // Longer, but all on disk: one region for the caller to send with `sendfile`. A data
            // file's held bytes never change (a new version gets a new inode) and a descriptor
            // keeps an evicted file's bytes, so the region stays true while it is sent.
            guard attached.isEmpty, parts.count == 1, parts[0].prefix == nil, length <= Self.heldRegionLimit,
                let file = entry.fileHolding(parts[0].range, generation: generation)
            else { return nil }
            entry.beginUse()  // the access time moves, as a read's does
            entry.endUse()
            counters.withLock { $0.hitBytes += length }
            let region = CachedFileRegion(file: file, offset: parts[0].range.lowerBound, count: length)
            return MediaResponse(
                status: status, headers: headers,
                body: MediaBody(region: region, chunkSize: configuration.readChunkSize),
                finalURL: finalURL ?? request.url)
        }
        let logger = self.logger(for: request)
        let lease = EntryLease(entry: entry, attached: attached)
        let body = MediaBody { [self] sink in
            var attached = lease.attached
            defer {
                lease.release(attached: attached)
                evictIfOverLimits()
            }
            for part in parts {
                if let prefix = part.prefix { try await sink.write(ByteBuffer(string: prefix)) }
                try await readRange(
                    part.range, entry: entry, generation: generation, attached: &attached, into: &sink, logger: logger)
            }
            if let closing { try await sink.write(ByteBuffer(string: closing)) }
        }
        return MediaResponse(status: status, headers: headers, body: body, finalURL: finalURL ?? request.url)
    }

    /// The cache's logger with the request's id, so one request's lines can be found together.
    /// Made only where something may log: the metadata costs an allocation and a redaction pass,
    /// and a cached answer logs nothing.
    func logger(for request: MediaRequest) -> Logger {
        var logger = self.logger
        logger[metadataKey: "request"] = "\(request.requestID)"
        return logger
    }

    /// The longest answer ``serveHeld(_:accepting:)`` gives as one file region (a segment or a
    /// seek's range; a whole film goes the streaming way, 16 MiB at a time).
    static let heldRegionLimit: Int64 = 16 << 20

    /// The bytes of `range` when every one of them is already in the data file, read now: a small
    /// cached answer then needs no body task and goes out with its head. Nil when a byte is
    /// missing or the read fails; the streaming body then plans the read (and reports errors).
    private func readHeld(_ range: Range<Int64>, entry: ResourceEntry, generation: Int) -> ByteBuffer? {
        let count = range.upperBound - range.lowerBound
        guard count > 0, count <= Int64(Int32.max), let file = entry.fileHolding(range, generation: generation)
        else { return nil }
        // In use while reading, as any reader is (eviction waits), and the access time moves.
        entry.beginUse()
        defer { entry.endUse() }
        var buffer = allocator.buffer(capacity: Int(count))
        do {
            try file.read(at: range.lowerBound, count: Int(count), into: &buffer)
        } catch {
            return nil
        }
        counters.withLock { $0.hitBytes += count }
        return buffer
    }

    /// Streams `range` of a resource into `sink`: disk reads where bytes are held, waits on the
    /// fetch that brings them otherwise, starting a fetch only where none is under way.
    func readRange(
        _ range: Range<Int64>, entry: ResourceEntry, generation: Int, attached: inout Set<Int>,
        into sink: inout any MediaBodySink, logger: Logger
    ) async throws {
        var position = range.lowerBound
        // One buffer for the whole range, refilled once the connection has released it.
        var chunk = allocator.buffer(capacity: configuration.readChunkSize)
        var waited = false
        // When this reader started waiting for the byte at `position` (see `maxWaitSeconds`).
        var waitingSince: ContinuousClock.Instant?
        var attempts = 0
        var failuresSeen = entry.failureState.count
        /// Counts a fetch failure that happened since this reader last looked. The planner starts
        /// another fetch unless the failure is permanent or the retries are used up: then the
        /// error to give up with is returned.
        func noteFailures() -> (failed: Bool, giveUp: (any Error)?) {
            let failures = entry.failureState
            guard failures.count != failuresSeen else { return (false, nil) }
            failuresSeen = failures.count
            attempts += 1
            if let error = failures.last as? MediaCacheError, error.kind == .upstream, !error.isTransient {
                return (true, error)
            }
            if attempts > configuration.fetchRetries {
                return (true, failures.last ?? MediaCacheError.badResponse("fetch failed"))
            }
            return (true, nil)
        }
        /// Counts bytes handed to the sink (a miss if this reader had to wait for them) and moves on.
        func delivered(_ count: Int64) {
            let wasMiss = waited
            counters.withLock { wasMiss ? ($0.missBytes += count) : ($0.hitBytes += count) }
            position += count
            attempts = 0
            waitingSince = nil
        }
        while position < range.upperBound {
            try Task.checkCancellation()
            switch entry.nextStep(
                at: position, until: range.upperBound, generation: generation, attached: &attached,
                seekThreshold: configuration.seekThreshold, headWait: .seconds(configuration.headTimeoutSeconds))
            {
            case .read(let file, let count):
                // Long runs go to the connection without a copy through user space (sendfile),
                // when the sink can; at most 16 MiB at a time, so counters and cancellation move.
                let run = min(count, range.upperBound - position, 16 << 20)
                if run >= configuration.fileRegionThreshold,
                    try await sink.write(CachedFileRegion(file: file, offset: position, count: run))
                {
                    delivered(run)
                    continue
                }
                let size = Int(min(count, Int64(configuration.readChunkSize), range.upperBound - position))
                try file.read(at: position, count: size, into: &chunk)
                try await sink.write(chunk)
                // A write that did not suspend says nothing about the socket yet: without this a
                // reader of cached bytes can queue megabytes before its connection reports it is
                // not writable (500 slow players would hold gigabytes).
                await sink.waitUntilHandedOver()
                delivered(Int64(size))
            case .memory(let buffer):
                // A reader right behind a fetch: the bytes it just wrote, without reading them back.
                try await sink.write(buffer)
                await sink.waitUntilHandedOver()
                delivered(Int64(buffer.readableBytes))
            case .wait(let changes):
                if case (_, let giveUp?) = noteFailures() { throw giveUp }
                let now = ContinuousClock.now
                if let since = waitingSince, now - since >= .seconds(configuration.maxWaitSeconds) {
                    // A fetch that brings nothing for this long (a reader far ahead of a slow whole
                    // body, a stalled origin): this reader stops; the fetch goes on for the others.
                    throw MediaCacheError.timeout
                }
                waitingSince = waitingSince ?? now
                waited = true
                await entry.waitForChange(after: changes)
            case .waitForHead(let changes, let deadline):
                // Another fetch's head tells whether this origin honours Range (see nextStep).
                if case (_, let giveUp?) = noteFailures() { throw giveUp }
                waited = true
                await entry.waitForChange(after: changes, until: deadline)
            case .fetch(let id, let fetchRange, let meta, let fetchGeneration):
                let (failed, giveUp) = noteFailures()
                if let giveUp {
                    entry.detach([id])
                    attached.remove(id)
                    entry.didFinish(fetch: id, error: nil)
                    throw giveUp
                }
                if failed {
                    // Back off a little before asking a failing origin again.
                    do {
                        try await Task.sleep(for: .milliseconds(100 * attempts))
                    } catch {
                        // Gone before starting it: other readers may already wait for this fetch
                        // (with an origin that ignores Range, all of them do), so end it, which
                        // wakes them to plan again, rather than leave it registered and unstarted.
                        entry.didFinish(fetch: id, error: nil)
                        throw error
                    }
                }
                waited = true
                waitingSince = nil
                startGapFetch(
                    entry: entry, id: id, range: fetchRange, meta: meta, generation: fetchGeneration, logger: logger)
            case .changed:
                throw MediaCacheError.resourceChanged
            }
        }
    }

    /// A 502/504/origin error as an answer, passing the origin's status and body through.
    private func passthroughError(_ error: MediaCacheError, head: Bool) -> MediaResponse {
        var headers = HTTPHeaders()
        let body = error.body ?? ByteBuffer(string: error.description + "\n")
        headers.add(
            name: "Content-Type", value: error.headers.first(name: "Content-Type") ?? "text/plain; charset=utf-8")
        if let retryAfter = error.headers.first(name: "Retry-After") {
            headers.add(name: "Retry-After", value: retryAfter)
        }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        return MediaResponse(
            status: error.status, headers: headers, body: head ? nil : MediaBody { try await $0.write(body) })
    }

    /// Streams an origin response to the client without caching it.
    private func passthrough(_ response: UpstreamResponse, head: Bool) -> MediaResponse {
        var headers = HTTPHeaders()
        for name in [
            "Content-Type", "Content-Length", "Content-Range", "Accept-Ranges", "ETag", "Last-Modified",
            "Content-Encoding", "Cache-Control",
        ] {
            if let value = response.headers.first(name: name) { headers.add(name: name, value: value) }
        }
        if head {
            return MediaResponse(status: response.status, headers: headers, body: nil, finalURL: response.finalURL)
        }
        let body = MediaBody { [self] sink in
            for try await chunk in response.body {
                counters.withLock {
                    $0.missBytes += Int64(chunk.readableBytes)
                    $0.originBytes += Int64(chunk.readableBytes)
                }
                try await sink.write(chunk)
            }
        }
        return MediaResponse(status: response.status, headers: headers, body: body, finalURL: response.finalURL)
    }
}
