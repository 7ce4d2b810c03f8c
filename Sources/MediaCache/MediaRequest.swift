import Foundation
import NIOCore
import NIOHTTP1

/// A player's request for a resource, as the cache needs it.
public struct MediaRequest: Sendable {
    public enum Method: Sendable { case get, head }

    /// Whether the answer may be written to disk.
    public enum Storage: Sendable {
        /// Cache it where it is cacheable (the default).
        case cache
        /// Stream it through and never write it to disk (encryption keys).
        case passthrough
    }

    /// The origin URL (http or https).
    public var url: URL
    /// Headers sent upstream with every fetch of this resource (User-Agent, Referer, …).
    public var upstreamHeaders: [(String, String)]
    public var method: Method
    /// The client's `Range` header, if any.
    public var range: String?
    /// The client's `If-Range` header, if any.
    public var ifRange: String?
    /// Goes into log metadata so one request's lines can be found together.
    public var requestID: String
    public var storage: Storage

    public init(
        url: URL, upstreamHeaders: [(String, String)] = [], method: Method = .get, range: String? = nil,
        ifRange: String? = nil, requestID: String = UUID().uuidString, storage: Storage = .cache
    ) {
        self.storage = storage
        self.url = url
        self.upstreamHeaders = upstreamHeaders
        self.method = method
        self.range = range
        self.ifRange = ifRange
        self.requestID = requestID
    }
}

/// Where a response body goes: the server's writer, a file, or a counter.
public protocol MediaBodySink {
    mutating func write(_ buffer: ByteBuffer) async throws
    /// Returns once the bytes written so far have been handed to the connection, so a producer
    /// that is faster than its client does not queue megabytes in memory. A no-op by default.
    mutating func waitUntilHandedOver() async
    /// Sends a run of cached bytes straight from the cache's data file (with `sendfile`, say),
    /// and returns true once they are sent. Returns false, the default, when this sink cannot:
    /// the cache then reads the bytes and calls `write(_:)`. A wrapper that only counts bytes
    /// should forward it; a wrapper that looks at the bytes must not.
    mutating func write(_ region: CachedFileRegion) async throws -> Bool
}

extension MediaBodySink {
    public mutating func waitUntilHandedOver() async {}
    public mutating func write(_ region: CachedFileRegion) async throws -> Bool { false }
}

/// A response body that is produced while it is written, so bytes reach the client as they
/// arrive from the origin.
public struct MediaBody: Sendable {
    let produce: @Sendable (inout any MediaBodySink) async throws -> Void
    /// The whole body, when it was in memory before the response was made (a small cached
    /// answer): a server can send it together with the head, in one write.
    public let bytes: ByteBuffer?

    /// A body produced by `produce`, which writes every byte into the sink it is given.
    public init(_ produce: @escaping @Sendable (inout any MediaBodySink) async throws -> Void) {
        self.produce = produce
        self.bytes = nil
        self.region = nil
    }

    /// The whole body as one run of a data file, every byte of it written there before the
    /// response was made: a server can send it with `sendfile` right after the head.
    public let region: CachedFileRegion?

    /// A body that is all of `bytes`, already read.
    public init(bytes: ByteBuffer) {
        self.bytes = bytes
        self.region = nil
        self.produce = { try await $0.write(bytes) }
    }

    /// A body that is all of `region`, held on disk: written as the region where the sink can
    /// take one, else read in chunks of `chunkSize`.
    init(region: CachedFileRegion, chunkSize: Int) {
        self.bytes = nil
        self.region = region
        self.produce = { sink in
            if try await sink.write(region) { return }
            var chunk = ByteBufferAllocator().buffer(capacity: chunkSize)
            var offset = region.offset
            let end = region.offset + region.count
            while offset < end {
                let count = Int(min(Int64(chunkSize), end - offset))
                chunk.clear()
                try region.file.read(at: offset, count: count, into: &chunk)
                try await sink.write(chunk)
                await sink.waitUntilHandedOver()
                offset += Int64(count)
            }
        }
    }

    /// Writes the whole body into `sink`. Throws when the origin fails midway; the caller must
    /// then end the response abruptly (the length promised in the head cannot be met).
    public func write(into sink: inout any MediaBodySink) async throws {
        try await produce(&sink)
    }
}

/// What the cache answers: a status, headers and (except for HEAD and bodiless answers) a body.
public struct MediaResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: MediaBody?
    /// The URL that answered, after redirects, when known (playlists resolve against it).
    public var finalURL: URL?

    public init(status: Int, headers: HTTPHeaders, body: MediaBody?, finalURL: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.finalURL = finalURL
    }

    /// Reads the whole body into memory, up to `limit` bytes (nil when it is longer or fails).
    public func collectBody(limit: Int) async -> [UInt8]? {
        guard let body else { return [] }
        var sink: any MediaBodySink = CollectingSink(limit: limit)
        do {
            try await body.write(into: &sink)
        } catch {
            return nil
        }
        return (sink as? CollectingSink)?.bytes
    }

    static func error(status: Int, message: String) -> MediaResponse {
        let text = message + "\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(text.utf8.count))
        return MediaResponse(
            status: status, headers: headers,
            body: MediaBody { sink in
                try await sink.write(ByteBuffer(string: text))
            })
    }
}

/// Collects a body in memory, refusing to grow past a limit.
struct CollectingSink: MediaBodySink {
    let limit: Int
    var bytes: [UInt8] = []

    struct TooLarge: Error {}

    mutating func write(_ buffer: ByteBuffer) async throws {
        guard bytes.count + buffer.readableBytes <= limit else { throw TooLarge() }
        buffer.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
    }
}
