import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import TunerApp

/// The request context of Tuner's routes: JSON with ISO 8601 dates both ways, and answers with
/// provider secrets redacted.
public struct TunerRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection, so streaming bodies can wait for its event loop to catch up.
    public let channel: any Channel
    /// Where a WebSocket upgrade's handler is kept (`/api/v1/events`).
    public let webSocket = WebSocketHandlerReference<TunerRequestContext>()
    /// Who the request acts as, set by the request guard (nil on open paths).
    public var principal: AccessPrincipal?
    /// The client's address, set by the request guard: the connection's, or what a trusted proxy's
    /// `X-Forwarded-For` says (see ``TrustedProxies``).
    public var clientAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    public var requestDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// JSON with provider secrets redacted from every string (see ``RedactingJSONEncoder``).
    public var responseEncoder: some ResponseEncoder { RedactingJSONEncoder() }
}
