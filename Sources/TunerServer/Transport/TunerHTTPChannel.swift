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
/// close. The plain HTTP/1 channel answers 400; ``BadRequestAnswerer``, right after the decoder,
/// answers the same before the connection closes, so a client learns why (and refuses heads
/// that break the Host rules, which need the request's version and target).
struct TunerHTTPChannel: Sendable {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    /// Answers warm stream requests before Hummingbird sets the connection up (see
    /// ``StreamFrontHandler``); nil to hand every connection over at once.
    let fastPath: StreamFastPath?
    let idleTimeout: TimeAmount
    /// The Host rule, for absolute-form request targets (see ``BadRequestAnswerer``).
    let acceptsHost: @Sendable (String) -> Bool

    init(
        responder: @escaping HTTPChannelHandler.Responder, webSocketResponder: RouterResponder<TunerRequestContext>,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration, fastPath: StreamFastPath?,
        idleTimeout: TimeAmount, acceptsHost: @escaping @Sendable (String) -> Bool
    ) {
        inner = HTTP1WebSocketUpgradeChannel(
            responder: responder, webSocketResponder: webSocketResponder, configuration: configuration)
        self.fastPath = fastPath
        self.idleTimeout = idleTimeout
        self.acceptsHost = acceptsHost
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
            let answerer = BadRequestAnswerer(acceptsHost: acceptsHost)
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
