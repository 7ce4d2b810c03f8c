import NIOCore
import NIOHTTP1

/// Answers HTTP/1.0 requests the way HTTP/1.0 clients read them: the answer's head says
/// HTTP/1.0, so NIO's encoder never frames its body with chunked transfer coding (which an
/// HTTP/1.0 client takes for part of the body: chunk sizes inside an XMLTV guide or an MPEG-TS
/// stream), and the connection closes after the answer, which is how such a client learns
/// where a body of unknown length ends (RFC 9112 §6.1 and §9.3).
///
/// Hummingbird reads requests as swift-http-types values, which carry no version, so it would
/// answer HTTP/1.1 framing and keep the connection. This handler sits right after NIO's
/// decoder: each HTTP/1.0 request head gets `Connection: close` (Hummingbird then closes after
/// its answer, as for an HTTP/1.1 client that asked so; HTTP/1.0's optional keep-alive is not
/// offered), and the answer's head is rewritten to HTTP/1.0. Answers go out in request order,
/// so a queue pairs them. At a WebSocket upgrade (HTTP/1.1 only) it leaves the pipeline.
final class HTTP10Compatibility: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request read whose answer has not started: whether it was HTTP/1.0.
    private var pending = CircularBuffer<Bool>()
    /// A WebSocket upgrade's 101 went out: the handler leaves at the next flush.
    private var upgraded = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        // HTTP/1.0, or anything older llhttp lets through.
        let isHTTP10 = (head.version.major, head.version.minor) < (1, 1)
        pending.append(isHTTP10)
        if isHTTP10 {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if head.status == .switchingProtocols {
            // The connection stops speaking HTTP/1 after this head: leave at its flush (leaving
            // here would lose the flush of a `writeAndFlush`, which follows through this handler).
            upgraded = true
            context.write(data, promise: promise)
            return
        }
        // An interim answer (100 Continue) comes before the request's own.
        guard head.status.code >= 200, let isHTTP10 = pending.popFirst(), isHTTP10 else {
            context.write(data, promise: promise)
            return
        }
        head.version = .http1_0
        head.headers.remove(name: "Transfer-Encoding")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if upgraded { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }
}
