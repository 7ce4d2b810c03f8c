import NIOCore
import NIOHTTP1

/// Answers a connection's warm stream requests right after NIO's HTTP/1 decoder, before
/// Hummingbird has anything running for the connection, and hands the connection to Hummingbird
/// at its first request that ``StreamFastPath`` does not take.
///
/// Hummingbird takes a connection on at its first request: the WebSocket upgrade negotiation,
/// its HTTP/1 handlers, an async channel and a task that reads it (``TunerHTTPServer`` starts
/// that task only at the hand-off). A player that opens a connection per segment would pay all
/// of that for one warm answer, and every request on the connection would cross the
/// swift-http-types conversion and the connection-state handler. Here such a request costs the
/// decoder, the cache lookup and the encoder, as in a bare SwiftNIO server. Its answer is the
/// router's, byte for byte (see ``StreamFastPath/head(of:)``).
///
/// Until the hand-off this handler keeps what Hummingbird would: the idle timeout (a
/// connection with no request in progress and no answer being sent for `idleTimeout` is closed,
/// so also one that never completes a request head), the close after the answers in flight when
/// the server shuts down (`ChannelShouldQuiesceEvent`) or the client half-closes, and
/// back-pressure (a connection whose socket is full goes to Hummingbird, whose reader waits).
/// At the hand-off it passes the request on to the upgrade handler behind it, as if it were the
/// connection's first, and leaves the pipeline; the answers it already queued go out first.
final class StreamFrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let fastPath: StreamFastPath
    private let idleTimeout: TimeAmount
    /// A request this handler may answer (its head, and what the fast path reads of it), held
    /// until its end arrives.
    private var held: (head: HTTPRequestHead, request: StreamFastPath.Request)?
    /// Answers written whose last part has not been sent yet.
    private var answersInFlight = 0
    /// When a request part arrived or an answer was sent last.
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    /// Set once the connection should end (shutdown, or the client sent all it will): it ends
    /// when the answers in flight are sent.
    private var ending = false
    private var handedOff = false
    /// Starts Hummingbird's handling of the connection (its task); called at the hand-off only.
    private let startHummingbird: () -> Void

    init(fastPath: StreamFastPath, idleTimeout: TimeAmount, startHummingbird: @escaping () -> Void) {
        self.fastPath = fastPath
        self.idleTimeout = idleTimeout
        self.startHummingbird = startHummingbird
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { scheduleIdleCheck(context: context, at: .now() + idleTimeout) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if idleCheck == nil { scheduleIdleCheck(context: context, at: .now() + idleTimeout) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !handedOff else {
            context.fireChannelRead(data)
            return
        }
        lastActivity = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            if held == nil, !ending, context.channel.isWritable, let request = Self.request(head) {
                held = (head, request)
            } else {
                handOff(held: nil, then: data, context: context)
            }
        case .body:
            // A body: not a request this path answers.
            handOff(held: held?.head, then: data, context: context)
        case .end:
            guard let (head, request) = held else {
                handOff(held: nil, then: data, context: context)
                return
            }
            held = nil
            if let (responseHead, body) = fastPath.answer(request, head: fastPath.head(of:)) {
                write(responseHead, body, context: context)
            } else {
                handOff(held: head, then: data, context: context)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard !handedOff else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if event is ChannelShouldQuiesceEvent {
            // Hummingbird's handlers are not there yet to close the connection at shutdown.
            endWhenSent(context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            // The client sent all it will; the upgrade handler closes on this, so it learns only
            // once the answers queued here are sent.
            endWhenSent(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// What ``StreamFastPath`` reads of `head`, read in one pass, when it is a `GET` of a stream
    /// URL over HTTP/1.1 that keeps the connection open, with nothing that asks for Hummingbird's
    /// handling (a body, an upgrade, an expectation), and each field the answer reads given once,
    /// so it reads the same as through swift-http-types; else nil.
    static func request(_ head: HTTPRequestHead) -> StreamFastPath.Request? {
        guard head.method == .GET, head.version == .http1_1, head.uri.utf8.starts(with: "/stream/".utf8) else {
            return nil
        }
        let name = StreamFastPath.name(_:is:)
        var request = StreamFastPath.Request(target: head.uri)
        var host = 0
        var range = 0
        var ifRange = 0
        for header in head.headers {
            if name(header.name, "host") {
                host += 1
                request.host = header.value
            } else if name(header.name, "range") {
                range += 1
                request.range = header.value
            } else if name(header.name, "if-range") {
                ifRange += 1
                request.ifRange = header.value
            } else if name(header.name, "connection") {
                // Hummingbird answers a request that asks to close (it closes after the answer).
                guard name(header.value, "keep-alive") else { return nil }
            } else if name(header.name, "content-length") || name(header.name, "transfer-encoding")
                || name(header.name, "expect") || name(header.name, "upgrade")
            {
                return nil
            }
        }
        return host <= 1 && range <= 1 && ifRange <= 1 ? request : nil
    }

    private func write(_ head: HTTPResponseHead, _ body: StreamFastPath.Body, context: ChannelHandlerContext) {
        switch body {
        case .bytes(let bytes):
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
        case .region(let region):
            // `sendfile` from a descriptor of its own (closed once sent).
            guard let fileRegion = try? region.fileRegion() else {
                // No descriptor to spare: an answer that cannot be sent ends the connection, as
                // a failed body does on Hummingbird's path.
                context.close(promise: nil)
                return
            }
            let handle = fileRegion.fileHandle
            // The head goes out on its own first (it cannot share a system call with the region):
            // the player has it while the kernel copies the body.
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            let regionSent = context.eventLoop.makePromise(of: Void.self)
            regionSent.futureResult.whenComplete { _ in try? handle.close() }
            context.write(wrapOutboundOut(.body(.fileRegion(fileRegion))), promise: regionSent)
        }
        answersInFlight += 1
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: sent)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        sent.futureResult.whenComplete { _ in
            let (handler, context) = loopBound.value
            handler.answerSent(context: context)
        }
    }

    private func answerSent(context: ChannelHandlerContext) {
        answersInFlight -= 1
        lastActivity = .now()
        if ending, answersInFlight == 0, !handedOff { end(context: context) }
    }

    /// Passes the connection to Hummingbird: the held head (if any) and `data`, then leaves the
    /// pipeline, so what follows goes straight to the upgrade handler.
    private func handOff(held head: HTTPRequestHead?, then data: NIOAny, context: ChannelHandlerContext) {
        handedOff = true
        held = nil
        idleCheck?.cancel()
        idleCheck = nil
        startHummingbird()
        if let head { context.fireChannelRead(wrapInboundOut(.head(head))) }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func endWhenSent(context: ChannelHandlerContext) {
        ending = true
        if answersInFlight == 0 { end(context: context) }
    }

    /// Ends the connection through the upgrade handler behind: told the input is closed before
    /// any request reached it, it closes the connection and tells Hummingbird's connection task
    /// so, which ends quietly (a plain close would make it log an error).
    private func end(context: ChannelHandlerContext) {
        handedOff = true
        idleCheck?.cancel()
        idleCheck = nil
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private func scheduleIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.checkIdle(context: context)
        }
    }

    private func checkIdle(context: ChannelHandlerContext) {
        guard !handedOff else { return }
        if answersInFlight > 0 || held != nil {
            // Busy: the answer's end counts as activity, so look again a timeout later.
            scheduleIdleCheck(context: context, at: .now() + idleTimeout)
        } else if lastActivity + idleTimeout > .now() {
            scheduleIdleCheck(context: context, at: lastActivity + idleTimeout)
        } else {
            end(context: context)
        }
    }
}
