import Dispatch
import Foundation
import HTTPTypes
import HummingbirdCore
import MediaCache
import MediaFormats
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Streaming
import TunerApp

/// Answers warm stream requests on the connection's event loop, without a request task.
///
/// A cached file or range that is all on disk is the proxy's most common answer (a player's
/// segments, seeks and probes). Its own work is one `pread` (under `fileRegionThreshold`) or one
/// `sendfile` (up to 16 MiB), but through Hummingbird it also pays for a task per request, the
/// async channel's hand-offs and the middleware chain:
/// measured on 40 KB answers, Tuner used 72–92 µs of CPU per request where a minimal Hummingbird
/// server used 34–49 and a bare SwiftNIO handler 15–20. This path gives such a request the bare
/// handler's cost.
///
/// It answers only what it is sure of, with the parts the router's path uses, so the answer is
/// the same: the guard's own word that the request needs no credential and no further check
/// (``RequestGuardMiddleware/letsThrough(_:path:)``), the signer, the stream service's held
/// answer (``StreamService/serveHeld(link:range:ifRange:requestID:)``), the same headers plus
/// `Date` and `Server` as Hummingbird adds them, and the same request metrics. Anything else (a
/// cold or long answer, a playlist, a channel, a forged link, a refused host) goes on to
/// Hummingbird untouched, which then answers or refuses it as before.
///
/// Two handlers send its answers: ``StreamFrontHandler`` on a connection Hummingbird has not
/// taken yet (most players' connections never need it), ``StreamFastPathHandler`` after that.
struct StreamFastPath: Sendable {
    let requestGuard: RequestGuardMiddleware
    let signer: StreamLinkSigner
    let streams: StreamService
    let metrics: RequestMetricsMiddleware.Store
    let serverName: String?
    let dates = HTTPDateCache()
    let verdicts = PathVerdicts()

    /// Counts the answers given here, so `/metrics` (and the tests) can tell the path is used.
    static let answers = Counter(label: "tuner_stream_fast_answers_total")

    /// A cheap first look, at the head: a `GET` of a stream URL, which ``answer(_:)`` may take.
    /// Not one that asks to close the connection: Hummingbird closes after its answer (on
    /// exactly `Connection: close`), so it gives that answer.
    static func mayAnswer(_ request: HTTPRequest) -> Bool {
        request.method == .get && request.path?.utf8.starts(with: "/stream/".utf8) == true
            && request.headerFields[.connection] != "close"
    }

    /// `/` and RFC 3986's unreserved characters: the bytes of the proxy's own URLs.
    static func isPlainPathByte(_ byte: UInt8) -> Bool {
        StreamRequestBytes.isPlainPathByte(byte)
    }

    /// An answer's body: bytes read, or a run of a data file to send with `sendfile`.
    enum Body {
        case bytes(ByteBuffer)
        case region(CachedFileRegion)
    }

    /// What this path reads of a `GET` request with no body and no upgrade.
    typealias Request = StreamRequestHead

    /// The whole answer to `request` (which has no body), or nil when Hummingbird should give it.
    func answer(_ request: HTTPRequest) -> (head: HTTPResponse, body: Body)? {
        guard request.method == .get, let target = request.path,
            request.headerFields[.transferEncoding] == nil, request.headerFields[.expect] == nil,
            request.headerFields[.contentLength].map({ $0 == "0" }) ?? true, request.headerFields[.upgrade] == nil
        else { return nil }
        let fastRequest = Request(
            target: target, host: request.authority, range: request.headerFields[.range],
            ifRange: request.headerFields[.ifRange])
        return answer(fastRequest) { media in
            var fields = media.httpFields
            ProviderBytesMiddleware.makeInert(&fields, status: media.status)
            fields[.date] = dates.current
            if let serverName { fields[.server] = serverName }
            return HTTPResponse(status: HTTPResponse.Status(code: media.status), headerFields: fields)
        }
    }

    /// The held answer to `request` with the head `makeHead` gives it, or nil when Hummingbird
    /// should answer (also when `makeHead` gives no head). Records the answer's request metrics;
    /// the caller sends it.
    func answer<Head>(_ request: Request, head makeHead: (MediaResponse) -> Head?) -> (head: Head, body: Body)? {
        let start = DispatchTime.now().uptimeNanoseconds
        guard let verdict = pathVerdict(request.target), requestGuard.acceptsHost(request.host) else { return nil }
        let media: MediaResponse?
        if let number = verdict.segment {
            media = streams.serveSegmentHeld(
                of: verdict.link, number: number, range: request.range, ifRange: request.ifRange, requestID: "loop")
        } else {
            media = streams.serveHeld(
                link: verdict.link, range: request.range, ifRange: request.ifRange, requestID: "loop")
        }
        guard let media else { return nil }
        let body: Body
        if let bytes = media.body?.bytes {
            body = .bytes(bytes)
        } else if let region = media.body?.region {
            body = .region(region)
        } else {
            return nil
        }
        guard let head = makeHead(media) else { return nil }
        metrics.recordAnswer(
            RequestMetricsMiddleware.Key(
                route: verdict.segment != nil ? StreamPaths.segmentRoute : StreamPaths.streamRoute, method: .get,
                status: HTTPResponse.Status(code: media.status)),
            startedAt: start)
        Self.answers.increment()
        return (head, body)
    }

    /// What a stream request's target says, once it is known to be one this path answers: the
    /// verified link, and the media sequence number for a playlist's segment.
    struct PathVerdict: Sendable {
        let link: StreamLink
        let segment: Int?
    }

    /// The verdict on `target`, or nil when the router should judge it. The checks depend on the
    /// target alone (the guard's `Host` check is the caller's, per request), so a verdict is kept
    /// and a player's next range of the same file, or the next viewer's request for the same
    /// segment, skips them.
    func pathVerdict(_ target: String) -> PathVerdict? {
        if let known = verdicts.verdict(for: target) { return known }
        // A plain path (no query, escapes or dot segments) reads the same before and after the
        // guard's normalisation, so the components below are the ones the guard judged.
        guard target.utf8.allSatisfy(Self.isPlainPathByte), let parts = StreamPaths.components(target),
            !parts.contains(where: { $0 == "." || $0 == ".." }),
            let path = try? RequestPath(normalising: target), requestGuard.letsThroughSafePath(path),
            let link = try? signer.verify(signature: String(parts[0]), payload: String(parts[1]))
        else { return nil }
        let verdict: PathVerdict
        if parts.count == 4 {
            // A playlist's segment, `s<media sequence number>/<name>`, read as `StreamController` does.
            guard let number = StreamController.segmentNumber(parts[2]) else { return nil }
            verdict = PathVerdict(link: link, segment: number)
        } else {
            // A channel's link plays through its live session.
            guard link.channel == nil else { return nil }
            verdict = PathVerdict(link: link, segment: nil)
        }
        verdicts.remember(verdict, for: target)
        return verdict
    }

    /// The head of `media` as the bytes NIO's HTTP/1 encoder writes for the router's answer: the
    /// status line with the reason phrase NIO gives the code, the fields in order, then `Date`
    /// and `Server`. Nil when the router's answer could read differently: a field swift-http-types
    /// would not take as it is, a `Date` or `Server` of its own, a status without a body or a body
    /// without `Content-Length` (the encoder would change the framing fields); the router then
    /// gives that answer.
    func encodedHead(of media: MediaResponse, allocator: ByteBufferAllocator) -> ByteBuffer? {
        let code = media.status
        guard code >= 200, code != 204, code != 304, code <= 999 else { return nil }
        var buffer = allocator.buffer(capacity: 512)
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(code))
        buffer.writeStaticString(" ")
        let status = HTTPResponse.Status(code: code)
        buffer.writeString(HTTPResponseStatus(statusCode: code, reasonPhrase: status.reasonPhrase).reasonPhrase)
        buffer.writeStaticString("\r\n")
        var hasLength = false
        // The provider-bytes rule, as ProviderBytesMiddleware.makeInert writes it for the router.
        var hasType = false
        var typesPass = true
        for header in media.headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(HTTPToken.isTokenByte),
                HTTPField.isValidValue(header.value), !Self.isAddedHere(header.name),
                !Self.name(header.name, is: "transfer-encoding"), !ProviderBytesMiddleware.isSetHere(header.name)
            else { return nil }
            if Self.name(header.name, is: "content-length") { hasLength = true }
            buffer.writeString(header.name)
            buffer.writeStaticString(": ")
            if Self.name(header.name, is: "content-type") {
                hasType = true
                if ProviderContentType.passes(header.value) {
                    buffer.writeString(header.value)
                } else {
                    typesPass = false
                    buffer.writeStaticString("application/octet-stream")
                }
            } else {
                buffer.writeString(header.value)
            }
            buffer.writeStaticString("\r\n")
        }
        guard hasLength else { return nil }
        if !hasType {
            typesPass = false
            buffer.writeStaticString("Content-Type: application/octet-stream\r\n")
        }
        if !typesPass { buffer.writeStaticString("Content-Disposition: attachment\r\n") }
        buffer.writeStaticString(
            "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: sandbox; default-src 'none'\r\n")
        buffer.writeStaticString("Date: ")
        buffer.writeString(dates.current)
        buffer.writeStaticString("\r\n")
        if let serverName {
            buffer.writeStaticString("Server: ")
            buffer.writeString(serverName)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// `Date` or `Server`, which the answer's head gets here.
    static func isAddedHere(_ name: String) -> Bool {
        Self.name(name, is: "date") || Self.name(name, is: "server")
    }

    /// Whether `text` is `lowercase` in any case (ASCII), without making a string.
    static func name(_ text: String, is lowercase: StaticString) -> Bool {
        name(bytes: text.utf8, is: lowercase)
    }

    /// Whether `bytes` are `lowercase` in any case (ASCII): a field's name or value as a string,
    /// or still in the request's bytes (``StreamRequestParser``).
    static func name(bytes: some Collection<UInt8>, is lowercase: StaticString) -> Bool {
        StreamRequestBytes.name(bytes: bytes, is: lowercase)
    }
}

/// ``StreamFastPath``'s verdicts by request target, at most ``maximumCount`` (then all are
/// dropped at once, as the signer's verified links are: a miss costs the checks again).
final class PathVerdicts: Sendable {
    static let maximumCount = 4096
    private let verdicts = NIOLockedValueBox<[String: StreamFastPath.PathVerdict]>([:])

    func verdict(for target: String) -> StreamFastPath.PathVerdict? {
        verdicts.withLockedValue { $0[target] }
    }

    /// How many verdicts are kept.
    var count: Int { verdicts.withLockedValue { $0.count } }

    func remember(_ verdict: StreamFastPath.PathVerdict, for target: String) {
        verdicts.withLockedValue { verdicts in
            if verdicts.count >= Self.maximumCount { verdicts.removeAll(keepingCapacity: true) }
            verdicts[target] = verdict
        }
    }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), made at most once a second.
final class HTTPDateCache: Sendable {
    private let cached = NIOLockedValueBox<(second: Int, text: String)>((-1, ""))

    var current: String {
        let now = Int(Date().timeIntervalSince1970)
        return cached.withLockedValue { cached in
            if cached.second != now { cached = (now, HTTPDate.string(secondsSince1970: now)) }
            return cached.text
        }
    }
}

/// Puts a ``StreamFastPathHandler`` in a connection's pipeline once Hummingbird has built it, then
/// leaves.
///
/// Hummingbird adds its extra handlers before its connection-state handler, which times idle
/// connections out and closes them at shutdown by watching requests and answers go by. The fast
/// path must sit after it, so that its answers count as the connection's activity: this handler
/// is added where Hummingbird allows and, at the connection's first request (when the rest of the
/// pipeline is in place), adds the real one after the state handler.
final class StreamFastPathInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let fastPath: StreamFastPath

    init(fastPath: StreamFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let pipeline = context.pipeline.syncOperations
        if let state = try? pipeline.context(handlerType: HTTPConnectionStateHandler.self) {
            try? pipeline.addHandler(StreamFastPathHandler(fastPath: fastPath), position: .after(state.handler))
        }
        context.fireChannelRead(data)
        pipeline.removeHandler(context: context, promise: nil)
    }
}

/// Answers the requests ``StreamFastPath`` takes and passes every other one on, keeping answers
/// in the order their requests came: while an answer from Hummingbird is still being written,
/// the requests after it go to Hummingbird too. It also answers only while the connection is
/// writable, so a client that sends requests without reading answers meets Hummingbird's
/// back-pressure instead of filling memory here.
final class StreamFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let fastPath: StreamFastPath
    /// Requests passed on whose answers have not ended yet.
    private var passedOn = 0
    /// The head of a request that may be answered here, held until its end arrives.
    private var held: HTTPRequest?

    init(fastPath: StreamFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, held == nil, context.channel.isWritable, StreamFastPath.mayAnswer(request) {
                held = request
            } else {
                passOn(request, context: context)
            }
        case .body:
            // A body: not a request this path answers.
            if let request = held {
                held = nil
                passOn(request, context: context)
            }
            context.fireChannelRead(data)
        case .end:
            guard let request = held else {
                context.fireChannelRead(data)
                return
            }
            held = nil
            if let (head, body) = fastPath.answer(request) {
                write(head, body, context: context)
            } else {
                passOn(request, context: context)
                context.fireChannelRead(data)
            }
        }
    }

    private func write(_ head: HTTPResponse, _ body: StreamFastPath.Body, context: ChannelHandlerContext) {
        switch body {
        case .bytes(let bytes):
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(bytes)), promise: nil)
        case .region(let region):
            // `sendfile` from a descriptor of its own (closed once sent). The region enters the
            // pipeline above NIO's HTTP/1 encoder, after the head and before the end (all written
            // here, in order).
            guard let fileRegion = try? region.fileRegion() else {
                // No descriptor to spare: an answer that cannot be sent ends the connection,
                // as a failed body does on Hummingbird's path.
                context.close(promise: nil)
                return
            }
            let handle = fileRegion.fileHandle
            // The head goes out on its own first (it cannot share a system call with the region):
            // the player has it while the kernel copies the body.
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            guard let sent = FileRegionBodyWriter.write(fileRegion, on: context.channel) else {
                try? handle.close()
                context.close(promise: nil)
                return
            }
            sent.whenComplete { _ in try? handle.close() }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func passOn(_ request: HTTPRequest, context: ChannelHandlerContext) {
        passedOn += 1
        context.fireChannelRead(wrapInboundOut(.head(request)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Hummingbird's answers pass here on their way out; this path's own do not.
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}
