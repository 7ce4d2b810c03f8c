import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The main port's connections: HTTP/1 with the WebSocket upgrade of `/api/v1/events`
/// (hummingbird-websocket's channel), warm stream answers before Hummingbird, HTTP/1.0 framing
/// for HTTP/1.0 clients (``HTTP10Compatibility``), and an answer to requests whose head breaks
/// the limits. ``TunerHTTPServer`` sets each connection up and runs
/// ``handle(value:logger:)`` once the connection is handed to Hummingbird.
///
/// The upgrade channel negotiates before Hummingbird sees a request, and a head that fails to
/// decode (more than 200 header fields, a field over 80 KiB) ends that negotiation with a silent
/// close. The plain HTTP/1 channel answers 400; `BadRequestAnswerer`, right after the decoder,
/// answers the same before the connection closes, so a client learns why.
struct TunerHTTPChannel: Sendable {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    /// Answers warm stream requests before Hummingbird sets the connection up (see
    /// ``StreamFrontHandler``); nil to hand every connection over at once.
    let fastPath: StreamFastPath?
    let idleTimeout: TimeAmount

    init(
        responder: @escaping HTTPChannelHandler.Responder, webSocketResponder: RouterResponder<TunerRequestContext>,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration, fastPath: StreamFastPath?,
        idleTimeout: TimeAmount
    ) {
        inner = HTTP1WebSocketUpgradeChannel(
            responder: responder, webSocketResponder: webSocketResponder, configuration: configuration)
        self.fastPath = fastPath
        self.idleTimeout = idleTimeout
    }

    /// Builds the connection's pipeline; `handOff` gets its value when Hummingbird should take
    /// the connection (at once without a fast path).
    func setup(
        channel: any Channel, logger: Logger, handOff: @escaping @Sendable (Value) -> Void
    ) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            guard let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else {
                handOff(value)
                return value
            }
            let answerer = BadRequestAnswerer()
            try pipeline.addHandler(answerer, position: .after(decoder.handler))
            try pipeline.addHandler(HTTP10Compatibility(), position: .after(decoder.handler))
            if let fastPath {
                // First, before the decoder: it reads the bytes of the requests it answers.
                let front = StreamFrontHandler(fastPath: fastPath, idleTimeout: idleTimeout) { handOff(value) }
                try pipeline.addHandler(front, position: .first)
            } else {
                handOff(value)
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
