import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1
import Synchronization

/// The HTTP side of a download: one resource (a playlist into memory, an item into its file) with
/// the request's headers, retries with backoff, `Retry-After`, stall detection and length checks.
struct HLSDownloadFetcher: Sendable {
    let client: HTTPClient
    let logger: Logger
    let headers: [String: String]
    let retry: HLSDownloadRetrySettings
    /// Every request's hops, redirects included, pass it (`--allow-fetch`).
    var fetchGate: FetchGate = .open
    /// Called per body chunk: bytes are moving (see `HLSDownloader.download`).
    var activity: @Sendable () -> Void = {}

    /// Playlists larger than this are refused (a 40,000-segment playlist is about 3 MiB).
    static let maxPlaylistBytes = 32 << 20

    /// What one try produced.
    private enum Outcome: Sendable {
        case body([UInt8], finalURL: URL)
        case written(Int64)
    }

    /// Why one try failed.
    private enum AttemptFailure: Error {
        case status(Int, retryAfter: Duration?)
        case transport(any Error)
        case stalled
        case lengthMismatch(String)
        case notPermitted(TransferError)
    }

    // MARK: Public operations

    /// The bytes of a playlist and the URL it was finally fetched from (after redirects).
    func fetchPlaylist(_ url: URL, media: HLSDownloadMedia = .main) async throws -> (bytes: [UInt8], finalURL: URL) {
        let outcome = try await withRetries(url: url, segmentIndex: nil, media: media, what: "playlist") {
            try await attempt(url: url, range: nil, destination: nil)
        }
        guard case .body(let bytes, let finalURL) = outcome else {
            preconditionFailure("a playlist fetch returns a body")
        }
        return (bytes, finalURL)
    }

    /// Fetches `item` into its file in `directory`; returns the bytes written once they are synced
    /// (and, for a whole file, renamed into place).
    func fetch(_ item: HLSDownloadItem, into directory: String) async throws -> Int64 {
        let outcome = try await withRetries(
            url: item.url, segmentIndex: item.role == .segment ? item.segmentIndex : nil,
            media: item.media, what: item.role.rawValue
        ) {
            try await attempt(url: item.url, range: item.range, destination: directory + "/" + item.localName)
        }
        guard case .written(let count) = outcome else { preconditionFailure("an item fetch writes a file") }
        return count
    }

    // MARK: Retries

    private func withRetries(
        url: URL, segmentIndex: Int?, media: HLSDownloadMedia, what: String, _ body: () async throws -> Outcome
    ) async throws -> Outcome {
        let rendition = media.label
        let subject = rendition.map { $0 + " " + what } ?? what
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            let failure: AttemptFailure
            do {
                return try await body()
            } catch let error as AttemptFailure {
                failure = error
            } catch let error as TransferError {
                throw error
            } catch {
                // A cancelled task sees AsyncHTTPClient's `cancelled` or NIO errors: report the
                // cancellation, not a network failure.
                if Task.isCancelled { throw CancellationError() }
                failure = .transport(error)
            }
            if Task.isCancelled { throw CancellationError() }

            var retryAfter: Duration?
            let error: TransferError
            switch failure {
            case .status(let status, let after):
                retryAfter = after
                error = TransferError.hls(
                    .httpStatus, url: url, segmentIndex: segmentIndex, rendition: rendition, httpStatus: status,
                    retryAfter: after,
                    attempts: attempt, "the \(subject) request was answered with HTTP \(status)")
                guard TransferErrorClass(status: status) == .transient else { throw error }
            case .transport(let underlying):
                error = TransferError.hls(
                    .transport, url: url, segmentIndex: segmentIndex, rendition: rendition, attempts: attempt,
                    underlying: underlying, "the \(subject) request failed")
            case .stalled:
                error = TransferError.hls(
                    .stalled, url: url, segmentIndex: segmentIndex, rendition: rendition, attempts: attempt,
                    "no byte of the \(subject) arrived for \(retry.stallTimeout)")
            case .lengthMismatch(let detail):
                error = TransferError.hls(
                    .lengthMismatch, url: url, segmentIndex: segmentIndex, rendition: rendition,
                    attempts: attempt, detail)
            case .notPermitted(let permanent):
                throw permanent
            }
            // A long Retry-After is the task manager's to schedule, not a wait inside the download.
            if let retryAfter, retryAfter.seconds > retry.policy.maximumRetryAfter { throw error }
            var random = SystemRandomNumberGenerator()
            guard
                case .retry(let seconds) = retry.policy.decision(
                    transient: true, retryAfter: retryAfter.map { max($0.seconds, 0) }, failures: attempt,
                    random: &random)
            else { throw error }
            // Retry-After is a floor: the backoff still grows when a server asks for less.
            let backoff = retry.policy.delay(afterFailures: attempt, random: &random)
            let delay = Duration.seconds(max(seconds, backoff))
            logger.debug(
                "HLS download try failed; retrying",
                metadata: [
                    "url": "\(url.absoluteString)", "attempt": "\(attempt)", "error": "\(error)", "delay": "\(delay)",
                ])
            try await Task.sleep(for: delay)
        }
    }

    // MARK: One try

    /// One request, with a watchdog that abandons it when no byte arrives for the stall timeout.
    private func attempt(url: URL, range: HLSByteRange?, destination: String?) async throws -> Outcome {
        let lastProgress = ProgressClock()
        let stallTimeout = retry.stallTimeout
        return try await withThrowingTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                try await transfer(url: url, range: range, destination: destination, lastProgress: lastProgress)
            }
            group.addTask {
                let interval = max(stallTimeout / 4, .milliseconds(20))
                while true {
                    try await Task.sleep(for: interval)
                    if lastProgress.sinceLast > stallTimeout {
                        throw AttemptFailure.stalled
                    }
                }
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let outcome = first else {
                throw AttemptFailure.stalled
            }
            return outcome
        }
    }

    private func transfer(
        url: URL, range: HLSByteRange?, destination: String?, lastProgress: ProgressClock
    ) async throws -> Outcome {
        var request = HTTPClientRequest(url: url.absoluteString)
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let range {
            request.headers.replaceOrAdd(
                name: "Range", value: "bytes=\(range.offset)-\(range.offset + range.length - 1)")
        }
        let response: HTTPClientResponse
        let responseURL: URL
        do {
            // The watchdog covers the wait for the head too; this deadline is only a backstop.
            let fetched = try await client.execute(
                request, gate: fetchGate, timeout: .seconds(Int64(retry.stallTimeout.components.seconds) + 5),
                logger: logger)
            response = fetched.response
            responseURL = fetched.url
        } catch let error as FetchError {
            throw TransferError.permanent("\(error)")
        } catch {
            throw AttemptFailure.transport(error)
        }
        lastProgress.tick()

        let status = Int(response.status.code)
        guard status == 200 || (status == 206 && range != nil) else {
            // Read a little of the error body so the connection can be reused, then drop it.
            var drained = 0
            do {
                for try await chunk in response.body {
                    drained += chunk.readableBytes
                    if drained > 64 << 10 { break }
                }
            } catch {}
            throw AttemptFailure.status(
                status, retryAfter: Self.retryAfter(response.headers.first(name: "retry-after")))
        }
        let declaredLength = response.headers.first(name: "content-length").flatMap { HeaderNumber.nonNegative($0) }

        // Which bytes of the body to keep: all of it, or (when a server ignored Range and sent
        // the whole resource with 200) only the requested range.
        var skip: Int64 = 0
        var expected: Int64? = declaredLength
        if let range {
            if status == 206 {
                if let contentRange = response.headers.first(name: "content-range"),
                    !contentRange.hasPrefix("bytes \(range.offset)-\(range.offset + range.length - 1)/")
                {
                    throw AttemptFailure.lengthMismatch(
                        "asked for bytes \(range.offset)-\(range.offset + range.length - 1), got \(contentRange)")
                }
            } else {
                skip = Int64(range.offset)
            }
            expected = Int64(range.length)
        }

        guard let destination else {
            var bytes: [UInt8] = []
            do {
                for try await chunk in response.body {
                    lastProgress.tick()
                    activity()
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if bytes.count > Self.maxPlaylistBytes {
                        throw AttemptFailure.notPermitted(
                            TransferError.hls(
                                .invalidPlaylist, url: url, "the playlist is larger than \(Self.maxPlaylistBytes) bytes"
                            ))
                    }
                }
            } catch let error as AttemptFailure {
                throw error
            } catch {
                throw AttemptFailure.transport(error)
            }
            if let declaredLength, Int64(bytes.count) != declaredLength {
                throw AttemptFailure.lengthMismatch(
                    "Content-Length was \(declaredLength), received \(bytes.count) bytes")
            }
            return .body(bytes, finalURL: responseURL)
        }

        // A whole file goes to `<name>.partial` and is renamed when complete; a range is written
        // in place, at its own offset of the shared file.
        let writePath = range == nil ? destination + ".partial" : destination
        let file = try wrapFileError { () throws(TransferError) in
            try HLSDownloadFile(path: writePath, truncate: range == nil)
        }
        defer { file.close() }
        let base = Int64(range?.offset ?? 0)
        var received: Int64 = 0  // bytes of the body seen
        var kept: Int64 = 0  // bytes written
        do {
            for try await chunk in response.body {
                lastProgress.tick()
                activity()
                var chunk = chunk
                let chunkStart = received
                received += Int64(chunk.readableBytes)
                if chunkStart < skip {
                    let drop = Int(min(skip - chunkStart, Int64(chunk.readableBytes)))
                    chunk.moveReaderIndex(forwardBy: drop)
                }
                if let expected, kept + Int64(chunk.readableBytes) > expected {
                    guard range != nil else {
                        throw AttemptFailure.lengthMismatch(
                            "received more than the \(expected) bytes of Content-Length")
                    }
                    chunk = chunk.getSlice(at: chunk.readerIndex, length: Int(expected - kept)) ?? chunk
                }
                if chunk.readableBytes > 0 {
                    try wrapFileError { () throws(TransferError) in try file.write(chunk, at: base + kept) }
                    kept += Int64(chunk.readableBytes)
                }
                // A server that ignored Range: stop once the range is in, without the rest.
                if range != nil, let expected, kept == expected { break }
            }
        } catch let error as AttemptFailure {
            throw error
        } catch {
            throw AttemptFailure.transport(error)
        }
        if let expected, kept != expected {
            throw AttemptFailure.lengthMismatch("expected \(expected) bytes, received \(kept)")
        }
        try wrapFileError { () throws(TransferError) in try file.sync() }
        file.close()
        if range == nil {
            try wrapFileError { () throws(TransferError) in try HLSDownloadFiles.rename(writePath, to: destination) }
        }
        return .written(kept)
    }

    /// File errors are permanent: retrying a full disk does not help.
    private func wrapFileError<T>(_ body: () throws(TransferError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw AttemptFailure.notPermitted(error)
        }
    }

    /// A `Retry-After` value as seconds or an HTTP date.
    static func retryAfter(_ header: String?) -> Duration? {
        guard let header, let seconds = RetryPolicy.parseRetryAfter(header) else { return nil }
        return .seconds(Int64(seconds.rounded(.up)))
    }
}

/// When an attempt last made progress, read by its stall watchdog while the transfer ticks it.
private final class ProgressClock: Sendable {
    private let last = Mutex(ContinuousClock.now)

    func tick() { last.withLock { $0 = .now } }

    var sinceLast: Duration { ContinuousClock.now - last.withLock { $0 } }
}
