import HTTPTypes
import Hummingbird
import LiveTV
import Logging
import MediaCache
import NIOCore
import NIOHTTP1
import Streaming
import TunerApp

/// The stream proxy: `GET|HEAD /stream/<signature>/<payload>/<name>`, and the segments of a
/// rewritten media playlist, `GET|HEAD /stream/<signature>/<payload>/s<number>/<name>`.
struct StreamController {
    let engine: TunerEngine
    let fallbackBaseURL: @Sendable () -> String

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.get("/stream/:signature/:payload/:name", use: stream)
        router.head("/stream/:signature/:payload/:name", use: stream)
        // Hummingbird's router wants a parameter named alike at the same depth: `name` is the
        // segment's number here, and `file` its name.
        router.get("/stream/:signature/:payload/:name/:file", use: segment)
        router.head("/stream/:signature/:payload/:name/:file", use: segment)
    }

    /// The media sequence number a segment's path component (`s<number>`) names, or nil.
    static func segmentNumber(_ component: some StringProtocol) -> Int? {
        guard component.utf8.first == UInt8(ascii: "s"), component.utf8.count <= 17,
            let number = Int(component.dropFirst()), number >= 0
        else { return nil }
        return number
    }

    /// The link the path's signature and payload carry: 403 for a forged or expired one, 400 for
    /// one that cannot be read.
    private func verifiedLink(_ context: TunerRequestContext) throws -> StreamLink {
        let signature = try context.parameters.require("signature")
        let payload = try context.parameters.require("payload")
        return try engine.proxy.link(signature: signature, payload: payload)
    }

    /// A segment of a rewritten media playlist: `/stream/<playlist's signature>/<its
    /// payload>/s<media sequence number>/<name>`. The playlist's link is the credential; what the
    /// segment is comes from the playlist itself.
    @Sendable func segment(request: Request, context: TunerRequestContext) async throws -> Response {
        let segment = try context.parameters.require("name")
        guard let number = Self.segmentNumber(segment) else {
            throw FeatureError(.notFound, "'\(segment.prefix(20))' does not name a segment")
        }
        let playlist = try verifiedLink(context)
        let media = await engine.proxy.serveSegment(
            of: playlist, number: number, method: request.method == .head ? .head : .get,
            range: request.headers[.range], ifRange: request.headers[.ifRange], requestID: context.id)
        return Response(media, channel: context.channel)
    }

    @Sendable func stream(request: Request, context: TunerRequestContext) async throws -> Response {
        let link = try verifiedLink(context)
        if let channel = link.channel, LiveSessions.isHLS(link.url) {
            // An HLS channel's playlist: its segments are shared through the cache, and the
            // channel counts as one connection of its source while anyone asks for it.
            try await engine.liveChannels.noteHLSPlayer(
                channelID: channel, address: LiveController.address(of: context), link: link)
        } else if let channel = link.channel, LiveHLSSession.isFileName(context.parameters.get("name") ?? "") {
            // The channel as HLS for browsers: the same signed link, with the session's file names.
            let name = context.parameters.get("name") ?? ""
            let session = try await engine.liveChannels.hls(
                channelID: channel, address: LiveController.address(of: context))
            guard let (data, type) = await session.file(name, for: LiveController.address(of: context)) else {
                throw FeatureError(.notFound, "'\(name.prefix(40))' is not (or no longer) part of the stream")
            }
            return LiveController.hlsFile(data, type: type, head: request.method == .head)
        }
        if let channel = link.channel, !LiveSessions.isHLS(link.url) {
            // A live channel: through its session, so every viewer shares one upstream.
            let live = LiveSessions.Request(
                channelID: channel, profile: try LiveController.profile(of: request),
                address: LiveController.address(of: context))
            return try await LiveController.play(live, request, engine: engine)
        }
        // Rewritten playlist URIs point back at the address the player used.
        let proxyBase = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let media = await engine.proxy.serve(
            link: link, method: request.method == .head ? .head : .get, range: request.headers[.range],
            ifRange: request.headers[.ifRange], requestID: context.id, proxyBase: proxyBase, atStreamPath: true)
        return Response(media, channel: context.channel)
    }
}

extension MediaResponse {
    /// The answer's headers as swift-http-types fields (a name that is not a valid field name is
    /// left out), for Hummingbird's response and the stream fast path alike.
    var httpFields: HTTPFields {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return fields
    }
}

extension Response {
    /// Converts the cache's answer, streaming its body into the connection.
    init(_ media: MediaResponse, channel: (any Channel)? = nil) {
        let fields = media.httpFields
        let body: ResponseBody
        if let bytes = media.body?.bytes {
            // Hummingbird sends a single-buffer body with its head in one write (and one flush).
            body = ResponseBody(byteBuffer: bytes)
        } else if let mediaBody = media.body {
            body = ResponseBody { writer in
                var sink: any MediaBodySink = WriterSink(writer: writer, channel: channel)
                try await mediaBody.write(into: &sink)
                try await writer.finish(nil)
            }
        } else {
            body = ResponseBody()
        }
        self.init(status: HTTPResponse.Status(code: media.status), headers: fields, body: body)
    }
}

/// Lets the cache write into Hummingbird's response writer.
private struct WriterSink: MediaBodySink {
    var writer: any ResponseBodyWriter
    let channel: (any Channel)?
    /// Bytes written since the event loop was last asked about the channel.
    var unchecked = 0

    /// How much may be written on the strength of `isWritable` alone (read without a hop, it
    /// lags behind writes still queued for the event loop).
    static let checkInterval = 256 << 10

    mutating func write(_ buffer: ByteBuffer) async throws {
        unchecked += buffer.readableBytes
        try await writer.write(buffer)
    }

    /// Sends cached bytes with `sendfile`: the kernel copies them from the page cache to the
    /// socket, with no user-space buffer (the warm path's cost halves, and a slow player holds
    /// no memory at all). The region enters the pipeline just above NIO's HTTP/1 encoder, which
    /// frames it like any body part; see ``FileRegionBodyWriter``.
    mutating func write(_ region: CachedFileRegion) async throws -> Bool {
        guard let channel else { return false }
        let fileRegion = try region.fileRegion()
        let handle = fileRegion.fileHandle
        let sent: EventLoopFuture<Void>?
        do {
            sent = try await channel.eventLoop.submit { FileRegionBodyWriter.write(fileRegion, on: channel) }.get()
        } catch {
            try? handle.close()
            throw error
        }
        guard let sent else {
            try? handle.close()
            return false
        }
        defer { try? handle.close() }
        try await sent.get()
        return true
    }

    /// Waits until the connection has taken what was written: every 256 KiB (or whenever the
    /// channel says it is full) the channel's writability is read on its event loop, after the
    /// writes queued before, and while the socket is full the reader pauses, so a slow player
    /// holds about NIO's high-water mark in memory.
    mutating func waitUntilHandedOver() async {
        guard let channel else { return }
        if unchecked < Self.checkInterval && channel.isWritable { return }
        unchecked = 0
        while !Task.isCancelled {
            let state = try? await channel.eventLoop.submit { (channel.isActive, channel.isWritable) }.get()
            guard let (active, writable) = state, active, !writable else { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension CachedFileRegion {
    /// The run as a NIO `FileRegion` on a descriptor of its own (the caller closes its
    /// `fileHandle` once it is sent): the bytes stay readable even if the cache evicts the file
    /// meanwhile (held bytes never change: a new version gets a new inode).
    func fileRegion() throws -> FileRegion {
        // NIO has no other way to a FileRegion: every NIOFileHandle constructor is marked deprecated
        // or spelled `_deprecated…` (NIO's word for "supported; prefer NIOFileSystem"), and
        // NIOFileSystem cannot write to a socket. Copying through a buffer instead costs the warm
        // path more than 5% (measured for issue 11), so this one call stays, here only.
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: try openDescriptor())
        return FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(offset + count))
    }
}

/// A pass-through handler placed right above NIO's `HTTPResponseEncoder`, so a response body can
/// be written there as a `FileRegion`. Hummingbird's own writer carries only `ByteBuffer`s; the
/// encoder below frames a file region like any other body part (Content-Length or chunked).
///
/// Ordering is safe: the head and earlier body parts are already in the pipeline (Hummingbird's
/// writer hands each part to the event loop before its `write` returns), and the next part is
/// written only after this region is sent.
final class FileRegionBodyWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Writes `region` as a body part on `channel`, adding the handler on first use. Returns nil
    /// when the pipeline has no HTTP/1 encoder to frame it (then the caller copies the bytes).
    /// Must run on the channel's event loop.
    static func write(_ region: FileRegion, on channel: any Channel) -> EventLoopFuture<Void>? {
        let pipeline = channel.pipeline.syncOperations
        let context: ChannelHandlerContext
        if let existing = try? pipeline.context(handlerType: FileRegionBodyWriter.self) {
            context = existing
        } else {
            guard let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) else { return nil }
            let writer = FileRegionBodyWriter()
            guard (try? pipeline.addHandler(writer, position: .after(encoder))) != nil,
                let added = try? pipeline.context(handler: writer)
            else { return nil }
            context = added
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: promise)
        return promise.futureResult
    }
}
