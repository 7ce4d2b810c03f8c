import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1
import Tus

/// A tus 1.0 client (https://tus.io/protocols/resumable-upload): creates uploads, asks for their
/// offset, sends a file in PATCH chunks streamed from disk, and terminates uploads.
///
/// ``upload(file:to:from:chunkSize:checksum:headers:progress:)`` survives interruptions by
/// itself: after a reset, a timeout, a 5xx or an offset conflict it asks the server for its
/// offset (HEAD) and continues from there, up to ``Configuration/maxAttemptsWithoutProgress``
/// failures in a row. Every failure is an ``TransferError`` whose classification tells a task
/// manager whether to retry later, give up, or fetch a new URL. Cancelling the calling task
/// stops at once with `CancellationError`; the server keeps what it confirmed.
public struct TusClient: Sendable {
    /// Limits and defaults of a client.
    public struct Configuration: Sendable {
        /// Bytes per PATCH when the caller gives none. A failed PATCH costs at most this much
        /// to send again; more requests cost a round trip each.
        public var chunkSize: Int64
        /// When an interrupted upload resumes: the retry policy every transfer shares, counting
        /// failed requests in a row with no progress between them (``RetryPolicy/maximumAttempts``
        /// of them are retried). A Retry-After longer than ``RetryPolicy/maximumDelay`` ends the
        /// call with the error instead: the task manager schedules long waits.
        public var retryPolicy: RetryPolicy
        /// The deadline of small requests (OPTIONS, POST, HEAD, DELETE). PATCH has none: a
        /// stalled PATCH is ended by the HTTP client's read timeout instead.
        public var requestTimeout: Duration

        /// `maxAttemptsWithoutProgress` requests in a row may fail before the call gives up; the
        /// pause before resuming starts at `retryDelay` and doubles up to `maxRetryDelay`.
        public init(
            chunkSize: Int64 = 8 << 20, maxAttemptsWithoutProgress: Int = 5, retryDelay: Duration = .milliseconds(200),
            maxRetryDelay: Duration = .seconds(10), requestTimeout: Duration = .seconds(30)
        ) {
            self.chunkSize = chunkSize
            self.retryPolicy = RetryPolicy(
                baseDelay: retryDelay.seconds, multiplier: 2, maximumDelay: maxRetryDelay.seconds, jitter: 0,
                maximumAttempts: max(1, maxAttemptsWithoutProgress) - 1,
                maximumRetryAfter: maxRetryDelay.seconds)
            self.requestTimeout = requestTimeout
        }
    }

    public static let version = "1.0.0"

    public let configuration: Configuration
    private let httpClient: HTTPClient
    private let logger: Logger
    /// Every request (the upload URL a server names included) passes it (`--allow-fetch`).
    private let fetchGate: FetchGate

    public init(
        httpClient: HTTPClient, configuration: Configuration = Configuration(), fetchGate: FetchGate = .open,
        logger: Logger
    ) {
        self.httpClient = httpClient
        self.configuration = configuration
        self.fetchGate = fetchGate
        self.logger = logger
    }

    // MARK: Protocol steps

    /// The server's OPTIONS answer: versions, extensions, checksum algorithms, maximum size.
    public func options(endpoint: URL, headers: [String: String] = [:]) async throws -> TusServerOptions {
        let response = try await send(
            .options, url: endpoint, method: .OPTIONS, headers: headers, expecting: [200, 204], expected: "200 or 204")
        func list(_ name: String) -> [String] {
            response.headers[name].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        return TusServerOptions(
            versions: list("Tus-Version"), extensions: Set(list("Tus-Extension")),
            checksumAlgorithms: list("Tus-Checksum-Algorithm").map { $0.lowercased() },
            maxSize: response.headers.first(name: "Tus-Max-Size").flatMap { HeaderNumber.nonNegative($0) })
    }

    /// Creates an upload of `fileSize` bytes (nil defers the length) at `endpoint` and returns
    /// its URL (the server's Location, resolved against `endpoint`).
    public func create(
        endpoint: URL, fileSize: Int64?, metadata: [String: String] = [:], headers: [String: String] = [:]
    ) async throws -> URL {
        var all = headers
        if let fileSize { all["Upload-Length"] = String(fileSize) } else { all["Upload-Defer-Length"] = "1" }
        let encoded = TusMetadata(metadata)
        if !encoded.entries.isEmpty { all["Upload-Metadata"] = encoded.headerValue }
        let response = try await send(
            .create, url: endpoint, method: .POST, headers: all, expecting: [201], expected: "201 Created")
        guard let location = response.headers.first(name: "Location"),
            let url = URL(string: location, relativeTo: endpoint)?.absoluteURL
        else {
            throw TransferError.protocolViolation(
                .create, url: endpoint.absoluteString, status: 201,
                "the server created the upload but sent no usable Location header")
        }
        return url
    }

    /// The server's committed offset of the upload at `uploadURL`.
    public func offset(of uploadURL: URL, headers: [String: String] = [:]) async throws -> Int64 {
        try await state(of: uploadURL, headers: headers).offset
    }

    /// Sends the bytes of the file at `path` from `offset` (nil asks the server first) to the end,
    /// in PATCH requests of `chunkSize` bytes streamed from disk, and returns the final offset.
    ///
    /// With `checksum`, each PATCH carries an `Upload-Checksum` in the strongest algorithm the
    /// server advertises in OPTIONS (nothing is sent when it advertises none). Between failures
    /// the client waits (honouring Retry-After), asks for the server's offset and continues
    /// from it.
    @discardableResult
    public func upload(
        file path: String, to uploadURL: URL, from offset: Int64? = nil, chunkSize: Int64? = nil, checksum: Bool = true,
        headers: [String: String] = [:], progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws -> Int64 {
        let file = try UploadFile(path: path)
        let largestChunk = max(1, chunkSize ?? configuration.chunkSize)
        // Starts at the largest and follows the link's speed (see `nextChunkSize`).
        var chunk = largestChunk
        let algorithm = checksum ? try await checksumAlgorithm(at: uploadURL, headers: headers) : nil
        var position: Int64
        if let offset {
            position = offset
        } else {
            let state = try await state(of: uploadURL, headers: headers)
            try check(state, against: file, url: uploadURL)
            position = state.offset
        }
        progress(UploadProgress(bytesSent: position, bytesConfirmed: position, totalBytes: file.size))

        var failures = 0
        var random = SystemRandomNumberGenerator()
        let policy = configuration.retryPolicy
        while position < file.size {
            try Task.checkCancellation()
            let count = min(chunk, file.size - position)
            do {
                let started = ContinuousClock.now
                let next = try await patch(
                    uploadURL, file: file, at: position, count: count, algorithm: algorithm, headers: headers,
                    progress: progress)
                chunk = Self.nextChunkSize(
                    sent: next - position, in: ContinuousClock.now - started, largest: largestChunk)
                guard next > position else {
                    // A server that accepts PATCHes but keeps none of their bytes would loop forever.
                    failures += 1
                    guard failures <= policy.maximumAttempts else {
                        throw TransferError(
                            .other, errorClass: .transient, operation: .patch, url: uploadURL.absoluteString,
                            status: 204,
                            """
                            the server answered \(failures) PATCHes without keeping any of their bytes \
                            (offset stays \(position))
                            """
                        )
                    }
                    continue
                }
                failures = 0
                position = next
                progress(UploadProgress(bytesSent: position, bytesConfirmed: position, totalBytes: file.size))
            } catch let error as TransferError where Self.isResumable(error) {
                failures += 1
                // A long Retry-After is the caller's to schedule, not a pause inside this call.
                if let retryAfter = error.retryAfter, retryAfter > policy.maximumDelay { throw error }
                guard
                    case .retry(let seconds) = policy.decision(
                        transient: true, retryAfter: error.retryAfter, failures: failures, random: &random)
                else { throw error }
                logger.info(
                    "tus upload interrupted; resuming",
                    metadata: ["url": "\(uploadURL)", "offset": "\(position)", "error": "\(error)"])
                // Retry-After is a floor: the backoff still grows when a server asks for less.
                let backoff = policy.delay(afterFailures: failures, random: &random)
                try await Task.sleep(for: .seconds(max(seconds, backoff)))
                do {
                    let state = try await state(of: uploadURL, headers: headers)
                    try check(state, against: file, url: uploadURL)
                    if state.offset > position { failures = 0 }
                    position = state.offset
                } catch let headError as TransferError where headError.errorClass == .transient {
                    // The server may still be away; the next round asks again.
                    continue
                }
            }
        }
        return position
    }

    /// Terminates (deletes) the upload at `uploadURL`. An upload the server no longer knows
    /// (404, 410) counts as terminated.
    public func terminate(_ uploadURL: URL, headers: [String: String] = [:]) async throws {
        _ = try await send(
            .terminate, url: uploadURL, method: .DELETE, headers: headers, expecting: [200, 204, 404, 410],
            expected: "204 No Content")
    }

    // MARK: Internals

    /// What HEAD says: the committed offset and the declared length.
    struct State {
        var offset: Int64
        var length: Int64?
    }

    func state(of uploadURL: URL, headers: [String: String]) async throws -> State {
        var all = headers
        all["Cache-Control"] = "no-store"
        let response = try await send(
            .offset, url: uploadURL, method: .HEAD, headers: all, expecting: [200, 204], expected: "200 OK")
        guard let text = response.headers.first(name: "Upload-Offset"), let offset = HeaderNumber.nonNegative(text)
        else {
            throw TransferError.protocolViolation(
                .offset, url: uploadURL.absoluteString, status: Int(response.status.code),
                "the server's HEAD answer has no valid Upload-Offset; is this a tus upload URL?")
        }
        return State(
            offset: offset,
            length: response.headers.first(name: "Upload-Length").flatMap { HeaderNumber.nonNegative($0) })
    }

    /// Refuses an upload URL that cannot belong to this file.
    private func check(_ state: State, against file: UploadFile, url: URL) throws {
        if let length = state.length, length != file.size {
            throw TransferError(
                .invalidRequest, operation: .offset, url: url.absoluteString,
                "the upload is for \(length) bytes but \(file.path) has \(file.size); create a new upload")
        }
        if state.offset > file.size {
            throw TransferError(
                .invalidRequest, operation: .offset, url: url.absoluteString,
                """
                the server holds \(state.offset) bytes, more than the \(file.size) of \(file.path); create a \
                new upload
                """
            )
        }
    }

    private func checksumAlgorithm(at uploadURL: URL, headers: [String: String]) async throws -> TusChecksumAlgorithm? {
        do {
            return try await options(endpoint: uploadURL, headers: headers).preferredChecksum
        } catch let error as TransferError where error.status != nil && error.errorClass == .permanent {
            // A server without OPTIONS on upload URLs offers no checksums we could know of.
            return nil
        }
    }

    /// Failures the upload loop resumes from: the transient ones, and a checksum mismatch
    /// (the bytes were damaged on the way; sending them again is the remedy).
    /// How long one PATCH should take at most: on a slow link a failed PATCH then costs at most
    /// this much resending, and progress is confirmed this often.
    static let patchTargetDuration: Duration = .seconds(10)
    /// The smallest adaptive chunk (a slower link still sends it whole).
    static let smallestAdaptiveChunk: Int64 = 256 << 10

    /// The next PATCH's size from the last one: what the link moved in `patchTargetDuration` at
    /// the last PATCH's speed, between `smallestAdaptiveChunk` and `largest`.
    static func nextChunkSize(sent: Int64, in elapsed: Duration, largest: Int64) -> Int64 {
        let smallest = min(largest, smallestAdaptiveChunk)
        let seconds = elapsed.seconds
        guard sent > 0, seconds > 0 else { return largest }
        let target = Double(sent) / seconds * (Double(patchTargetDuration.components.seconds))
        guard target.isFinite, target < Double(largest) else { return largest }
        return max(smallest, Int64(target))
    }

    static func isResumable(_ error: TransferError) -> Bool {
        error.errorClass == .transient || error.status == 460
    }

    private func patch(
        _ uploadURL: URL, file: UploadFile, at offset: Int64, count: Int64, algorithm: TusChecksumAlgorithm?,
        headers: [String: String], progress: @escaping @Sendable (UploadProgress) -> Void
    ) async throws -> Int64 {
        var request = HTTPClientRequest(url: uploadURL.absoluteString)
        request.method = .PATCH
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Tus-Resumable", value: Self.version)
        request.headers.replaceOrAdd(name: "Upload-Offset", value: String(offset))
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/offset+octet-stream")
        if let algorithm {
            let digest = try await UploadBlockingIO.run {
                try file.digest(from: offset, count: count, algorithm: algorithm)
            }
            request.headers.replaceOrAdd(
                name: "Upload-Checksum", value: TusChecksum(algorithm: algorithm, digest: digest).headerValue)
        }
        let total = file.size
        request.body = .stream(
            file.body(from: offset, count: count) { sent in
                progress(UploadProgress(bytesSent: offset + sent, bytesConfirmed: offset, totalBytes: total))
            }, length: .known(count))
        // A PATCH may take long on a slow link; stalls are the HTTP client's read timeout's job.
        let response = try await execute(request, operation: .patch, url: uploadURL, timeout: .hours(24))
        guard response.status == .noContent || response.status == .ok else {
            let body = try? await response.body.collect(upTo: 64 << 10)
            throw TransferError.http(
                .patch, url: uploadURL.absoluteString, status: Int(response.status.code), headers: response.headers,
                body: body, expected: "204 No Content")
        }
        _ = try? await response.body.collect(upTo: 64 << 10)
        guard let text = response.headers.first(name: "Upload-Offset"), let next = HeaderNumber.nonNegative(text),
            next >= offset, next <= offset + count
        else {
            throw TransferError.protocolViolation(
                .patch, url: uploadURL.absoluteString, status: Int(response.status.code),
                "the server's PATCH answer has no valid Upload-Offset")
        }
        return next
    }

    /// Sends a request without a body and checks the status; returns the response, body read.
    private func send(
        _ operation: TransferError.Operation, url: URL, method: HTTPMethod, headers: [String: String],
        expecting: Set<Int>, expected: String
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if method != .OPTIONS { request.headers.replaceOrAdd(name: "Tus-Resumable", value: Self.version) }
        let response = try await execute(request, operation: operation, url: url, timeout: configuration.requestTimeout)
        let body = try? await response.body.collect(upTo: 64 << 10)
        guard expecting.contains(Int(response.status.code)) else {
            throw TransferError.http(
                operation, url: url.absoluteString, status: Int(response.status.code), headers: response.headers,
                body: body, expected: expected)
        }
        return response
    }

    private func execute(_ request: HTTPClientRequest, operation: TransferError.Operation, url: URL, timeout: Duration)
        async throws -> HTTPClientResponse
    {
        do {
            return try await httpClient.execute(
                request, gate: fetchGate, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000),
                logger: logger
            ).response
        } catch let error as TransferError {
            throw error
        } catch let error as FetchError {
            throw TransferError.permanent("\(error)")
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw TransferError.network(operation, url: url.absoluteString, error: error)
        }
    }
}

extension Duration {
    fileprivate static func seconds(_ interval: TimeInterval) -> Duration {
        .milliseconds(Int64((interval * 1000).rounded()))
    }

    fileprivate static func hours(_ count: Int64) -> Duration {
        .seconds(count * 3600)
    }
}
