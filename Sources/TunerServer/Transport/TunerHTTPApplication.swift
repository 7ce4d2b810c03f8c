import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The main port's application: Hummingbird's `Application` with ``TunerHTTPServer`` in place of
/// Hummingbird's server, which `Application` cannot be given.
///
/// It answers as `Application.run` does: a request context per request with a request id in its
/// logger, an error that escapes the responder becomes an empty 500, every answer gets `Date`
/// and `Server`; and it runs the services beside the server, shutting the server down first.
struct TunerHTTPApplication<Responder: HTTPResponder>: Service
where Responder.Context == TunerRequestContext {
    let responder: Responder
    /// Answers WebSocket upgrades (only `/api/v1/events` has one).
    let webSocketResponder: RouterResponder<TunerRequestContext>
    let webSocket: HTTP1WebSocketUpgradeChannel.Configuration
    let fastPath: StreamFastPath?
    let idleTimeout: TimeAmount
    /// The Host rule, for absolute-form request targets (see ``BadRequestAnswerer``).
    let acceptsHost: @Sendable (String) -> Bool
    let host: String
    let port: Int
    let serverName: String
    let services: [any Service]
    let onServerRunning: @Sendable (any Channel) async -> Void
    let logger: Logger

    func run() async throws {
        let dates = HTTPDateCache()
        let responder = self.responder
        let logger = self.logger
        let serverName = self.serverName
        let respond: HTTPChannelHandler.Responder = { request, responseWriter, channel in
            let logger = logger.with(metadataKey: "hb.request.id", value: .stringConvertible(RequestID()))
            let context = TunerRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                logger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = dates.current
            response.headers[.server] = serverName
            do {
                try await responseWriter.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Rethrown as it is, Hummingbird would answer 400 after this answer's head.
                throw ParseErrorWhileWritingResponse()
            }
        }
        let server = TunerHTTPServer(
            host: host, port: port, backlog: 256,
            connections: TunerHTTPChannel(
                responder: respond, webSocketResponder: webSocketResponder, configuration: webSocket,
                fastPath: fastPath,
                idleTimeout: idleTimeout, acceptsHost: acceptsHost),
            eventLoopGroup: .singleton, onServerRunning: onServerRunning, logger: logger)
        // Services stop in reverse order: the server first, as in Hummingbird's `Application`.
        let group = ServiceGroup(configuration: .init(services: services + [server], logger: logger))
        try await group.run()
    }

    private struct ParseErrorWhileWritingResponse: Error {}
}

extension Logger {
    /// This logger with one more metadata value.
    fileprivate func with(metadataKey: String, value: MetadataValue) -> Logger {
        var logger = self
        logger[metadataKey: metadataKey] = value
        return logger
    }
}
