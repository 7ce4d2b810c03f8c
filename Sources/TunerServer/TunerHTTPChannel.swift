import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The server's connections: HTTP/1 with the WebSocket upgrade of `/api/v1/events`
/// (hummingbird-websocket's channel), plus an answer to requests whose head breaks the limits.
///
/// The upgrade channel negotiates before Hummingbird sees a request, and a head that fails to
/// decode (more than 200 header fields, a field over 80 KiB) ends that negotiation with a silent
/// close. The plain HTTP/1 channel answers 400; `BadRequestAnswerer`, right after the decoder,
/// answers the same before the connection closes, so a client learns why.
struct TunerHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            if let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try pipeline.addHandler(BadRequestAnswerer(), position: .after(decoder.handler))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        // The connection's requests run on its own event loop (see EventLoopTaskExecutor).
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }

    /// A server builder for Hummingbird's `Application`.
    static func builder(
        router: Router<TunerRequestContext>, configuration: HTTP1WebSocketUpgradeChannel.Configuration
    ) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            TunerHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: configuration))
        }
    }
}

/// Answers an HTTP parser error (a request head past the limits, or not HTTP) with 400 and
/// `Connection: close`, as NIO's own error handler does; the decoder closes the connection
/// right after. Inbound only: after a WebSocket upgrade it passes frames through untouched.
final class BadRequestAnswerer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError {
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
                promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }
}
