import NIOCore
import NIOHTTP1

/// Answers a request that breaks HTTP/1 with one 400 and `Connection: close`, then closes.
///
/// It sits right after NIO's decoder (and ``HTTP10Compatibility``), where the request's version
/// and target are still known (swift-http-types' requests carry neither):
/// - a head the decoder cannot read (more than 200 fields, a field over 80 KiB, not HTTP);
/// - an HTTP/1.1 request without `Host` (RFC 9112 §3.2; HTTP/1.0 may omit it);
/// - an absolute-form target (`GET http://host/path`) whose host the Host rule refuses, or any
///   other target that is not a path (authority form, a scheme other than http(s), user info):
///   the target's host is the one the request names (RFC 9112 §3.2.2), and the guard judges
///   only `Host`;
/// - a body the decoder cannot read (a chunk extension ended by a bare LF). Hummingbird already
///   has that request and would answer 500 after the 400: its answer is dropped here instead,
///   so one malformed request gets exactly one answer.
///
/// Answers keep request order: the 400 goes out once the answers to earlier requests have
/// ended. After a WebSocket upgrade's 101 the handler leaves the pipeline.
final class BadRequestAnswerer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The Host rule (``RequestGuardMiddleware/accepts(host:)``), for absolute-form targets.
    let acceptsHost: @Sendable (String) -> Bool

    /// Request heads passed on to Hummingbird.
    private var passedOn = 0
    /// Answers whose end has been written.
    private var ended = 0
    /// A request passed on whose end has not been read yet.
    private var readingBody = false
    /// The 400 is owed once this many answers have ended; answers from then on are dropped.
    private var owed: Int?
    private var answered = false
    private var upgraded = false

    init(acceptsHost: @escaping @Sendable (String) -> Bool) {
        self.acceptsHost = acceptsHost
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing after a refused request is read.
        guard owed == nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard accepts(head) else {
                owe(after: passedOn, context: context)
                return
            }
            passedOn += 1
            readingBody = true
        case .body:
            break
        case .end:
            readingBody = false
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, owed == nil {
            // A broken body belongs to a request Hummingbird has: the 400 takes its answer's place.
            owe(after: readingBody ? passedOn - 1 : passedOn, context: context)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if let owed, ended >= owed {
            // The answer to the refused request (Hummingbird's 500), or one after it.
            promise?.fail(ChannelError.outputClosed)
            return
        }
        switch part {
        case .head(let head) where head.status == .switchingProtocols:
            upgraded = true
        case .end:
            ended += 1
        default:
            break
        }
        context.write(data, promise: promise)
        if case .end = part { answerIfDue(context: context) }
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if upgraded { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    /// Whether a request head may go on to Hummingbird.
    private func accepts(_ head: HTTPRequestHead) -> Bool {
        if (head.version.major, head.version.minor) >= (1, 1), !head.headers.contains(name: "Host") { return false }
        let target = head.uri.utf8
        if target.first == UInt8(ascii: "/") { return true }
        // `OPTIONS *` asks about the server itself.
        if head.uri == "*" { return head.method == .OPTIONS }
        guard let authority = Self.absoluteFormAuthority(head.uri) else { return false }
        return acceptsHost(authority)
    }

    /// The authority of an absolute-form `http(s)://authority[/…]` target, or nil for any other
    /// form, an empty authority or one with user info.
    static func absoluteFormAuthority(_ target: String) -> String? {
        let lowered = target.prefix(8).lowercased()
        let rest: Substring
        if lowered.hasPrefix("http://") {
            rest = target.dropFirst(7)
        } else if lowered.hasPrefix("https://") {
            rest = target.dropFirst(8)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return String(authority)
    }

    private func owe(after answers: Int, context: ChannelHandlerContext) {
        owed = answers
        answerIfDue(context: context)
    }

    /// Writes the owed 400 once the earlier answers have ended, then closes.
    private func answerIfDue(context: ChannelHandlerContext) {
        guard let owed, ended >= owed, !answered else { return }
        answered = true
        let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
            promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
