import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// An endless GET opened through the fetch gate (a live channel at its provider): the status,
/// the few headers a reader needs, and the body, so the live engine reads streams without NIO's
/// HTTP types. Built once per upstream connection, never per chunk.
public struct EndlessStream: Sendable {
    /// Where to go on in a file read before: the byte to start at and the validator (ETag or
    /// Last-Modified) it must still match (`If-Range`).
    public struct Resume: Sendable {
        public var offset: Int64
        public var validator: String?

        public init(offset: Int64, validator: String?) {
            self.offset = offset
            self.validator = validator
        }
    }

    /// The answer's status code.
    public let statusCode: Int
    public let contentRange: String?
    public let contentLength: String?
    public let etag: String?
    public let lastModified: String?
    /// The bytes as they arrive; never ends for a live stream.
    public let body: HTTPClientResponse.Body

    /// Opens `url` with `headers` (in order; `User-Agent: Tuner` when they name none) and, when
    /// `resume` is set, a `Range` from its offset (with `If-Range`). Redirects are followed by
    /// hand, not by the client, so every hop passes `gate`, and credentials never follow a
    /// redirect to another origin. No deadline: the body never ends; a stall is the reader's to
    /// notice. Throws ``FetchError`` for a hop the gate refuses.
    public static func open(
        url: URL, headers: [(name: String, value: String)], resume: Resume?, client: HTTPClient, gate: FetchGate
    ) async throws -> EndlessStream {
        var request = HTTPClientRequest(url: url.absoluteString)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        if !request.headers.contains(name: "User-Agent") {
            request.headers.add(name: "User-Agent", value: "Tuner")
        }
        if let resume {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(resume.offset)-")
            if let validator = resume.validator {
                request.headers.replaceOrAdd(name: "If-Range", value: validator)
            }
        }
        let response = try await client.execute(request, gate: gate, deadline: .distantFuture).response
        return EndlessStream(
            statusCode: Int(response.status.code), contentRange: response.headers.first(name: "Content-Range"),
            contentLength: response.headers.first(name: "Content-Length"), etag: response.headers.first(name: "ETag"),
            lastModified: response.headers.first(name: "Last-Modified"), body: response.body)
    }
}
