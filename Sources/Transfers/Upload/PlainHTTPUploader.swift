import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Uploads a file as the body of one PUT or POST, streamed from disk (the file is never held in
/// memory), for servers that take plain uploads (WebDAV, S3 presigned URLs, simple sinks).
///
/// A plain upload cannot resume: a failed one starts again from byte 0. Failures are
/// ``TransferError``s with operation ``TransferError/Operation/send``, classified like tus ones.
public struct PlainHTTPUploader: Sendable {
    /// What the server answered to a successful upload.
    public struct Response: Sendable {
        public var status: Int
        /// Header names as the server sent them; look up with ``header(_:)``.
        public var headers: [(name: String, value: String)]
        /// The first 64 KiB of the answer's body (servers answer uploads with small documents).
        public var body: Data

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    private let httpClient: HTTPClient
    private let logger: Logger
    /// The target passes it (`--allow-fetch`); a redirect is not followed (the body is a stream).
    private let fetchGate: FetchGate

    public init(httpClient: HTTPClient, fetchGate: FetchGate = .open, logger: Logger) {
        self.httpClient = httpClient
        self.fetchGate = fetchGate
        self.logger = logger
    }

    /// Sends the file at `path` to `url` with `method` (PUT or POST) and `headers`; the body has a
    /// Content-Length (the file's size) and, unless `headers` say otherwise, Content-Type
    /// `application/octet-stream`. Any 2xx is success; anything else throws.
    ///
    /// - Parameter timeout: the whole request's deadline; stalls are caught earlier by the HTTP
    ///   client's read timeout.
    @discardableResult
    public func upload(
        file path: String, to url: URL, method: HTTPMethod = .PUT, headers: [String: String] = [:],
        timeout: Duration = .seconds(24 * 3600),
        progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws -> Response {
        let file = try UploadFile(path: path)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        if !request.headers.contains(name: "Content-Type") {
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
        }
        let total = file.size
        request.body = .stream(
            file.body(from: 0, count: total) { sent in
                progress(UploadProgress(bytesSent: sent, bytesConfirmed: 0, totalBytes: total))
            }, length: .known(total))
        progress(UploadProgress(bytesSent: 0, bytesConfirmed: 0, totalBytes: total))

        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(
                request, gate: fetchGate, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000),
                logger: logger
            ).response
        } catch let error as TransferError {
            throw error
        } catch let error as FetchError {
            throw TransferError.permanent("\(error)")
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw TransferError.network(.send, url: url.absoluteString, error: error)
        }
        let body = try? await response.body.collect(upTo: 64 << 10)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw TransferError.http(
                .send, url: url.absoluteString, status: Int(response.status.code), headers: response.headers,
                body: body, expected: "a 2xx status")
        }
        progress(UploadProgress(bytesSent: total, bytesConfirmed: total, totalBytes: total))
        logger.debug("plain upload done", metadata: ["url": "\(url)", "bytes": "\(total)"])
        return Response(
            status: Int(response.status.code), headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: body.map { Data($0.readableBytesView) } ?? Data())
    }
}
