import NIOCore

/// Answers a connection's warm stream requests as its first handler, before NIO's HTTP/1
/// decoder and before Hummingbird has anything running for the connection, and hands the
/// connection to Hummingbird at its first request that ``StreamFastPath`` does not take.
///
/// Hummingbird takes a connection on at its first request: the WebSocket upgrade negotiation,
/// its HTTP/1 handlers, an async channel and a task that reads it (``TunerHTTPServer`` starts
/// that task only at the hand-off). A player that opens a connection per segment would pay all
/// of that for one warm answer, and every request on the connection would cross the
/// swift-http-types conversion and the connection-state handler. Here such a request costs
/// ``StreamRequestParser`` (which reads only this request shape, off the bytes), the cache lookup
/// and one head written as bytes (``StreamFastPath/encodedHead(of:allocator:)``). Its answer is
/// the router's, byte for byte.
///
/// Until the hand-off this handler keeps what Hummingbird would: the idle timeout (a
/// connection with no answer being sent and no bytes for `idleTimeout` is closed, so also one
/// that never completes a request head), the close after the answers in flight when the server
/// shuts down (`ChannelShouldQuiesceEvent`) or the client half-closes, and back-pressure (a
/// connection whose socket is full goes to Hummingbird, whose reader waits). At the hand-off it
/// passes the bytes from the first request it does not answer on to NIO's decoder behind it, as
/// if they were the connection's first, and leaves the pipeline; the answers it already queued
/// go out first.
final class StreamFrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = IOData

    private let fastPath: StreamFastPath
    private let idleTimeout: TimeAmount
    /// Bytes read and not answered yet: the start of a request head (or, at the hand-off, what
    /// NIO's decoder gets first).
    private var unread: ByteBuffer?
    /// Answers written whose last part has not been sent yet.
    private var answersInFlight = 0
    /// When bytes arrived or an answer was sent last.
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
        var bytes = unwrapInboundIn(data)
        if unread == nil {
            unread = bytes
        } else {
            unread!.writeBuffer(&bytes)
        }
        answerWhatIsRead(context: context)
    }

    /// Answers the whole requests at the start of ``unread``, and hands the connection off at the
    /// first one the fast path does not take.
    private func answerWhatIsRead(context: ChannelHandlerContext) {
        while var bytes = unread {
            guard bytes.readableBytes > 0 else {
                unread = nil
                return
            }
            guard !ending, context.channel.isWritable else {
                handOff(context: context)
                return
            }
            let outcome = bytes.withUnsafeReadableBytes { StreamRequestParser.parse($0) }
            switch outcome {
            case .incomplete:
                return
            case .other:
                handOff(context: context)
                return
            case .request(let request, let length):
                let allocator = context.channel.allocator
                guard
                    let (head, body) = fastPath.answer(
                        request, head: { fastPath.encodedHead(of: $0, allocator: allocator) })
                else {
                    handOff(context: context)
                    return
                }
                bytes.moveReaderIndex(forwardBy: length)
                unread = bytes.readableBytes > 0 ? bytes : nil
                write(head, body, context: context)
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
            if unread != nil {
                // Half a request, then the end: NIO's decoder judges it, as it would have.
                handOff(context: context)
                context.fireUserInboundEventTriggered(event)
            } else {
                // The client sent all it will; the upgrade handler closes on this, so it learns
                // only once the answers queued here are sent.
                endWhenSent(context: context)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func write(_ head: ByteBuffer, _ body: StreamFastPath.Body, context: ChannelHandlerContext) {
        let sent = context.eventLoop.makePromise(of: Void.self)
        switch body {
        case .bytes(let bytes):
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(bytes)), promise: sent)
        case .region(let region):
            // `sendfile` from a descriptor of its own (closed once sent).
            guard let fileRegion = try? region.fileRegion() else {
                // No descriptor to spare: an answer that cannot be sent ends the connection, as
                // a failed body does on Hummingbird's path.
                sent.succeed()
                context.close(promise: nil)
                return
            }
            let handle = fileRegion.fileHandle
            // The head goes out on its own first (it cannot share a system call with the region):
            // the player has it while the kernel copies the body.
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            sent.futureResult.whenComplete { _ in try? handle.close() }
            context.writeAndFlush(wrapOutboundOut(.fileRegion(fileRegion)), promise: sent)
        }
        answersInFlight += 1
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

    /// Passes the connection to Hummingbird: the bytes not answered go to NIO's decoder behind,
    /// then this handler leaves the pipeline, so what follows goes straight to the decoder.
    private func handOff(context: ChannelHandlerContext) {
        handedOff = true
        idleCheck?.cancel()
        idleCheck = nil
        startHummingbird()
        if let bytes = unread {
            unread = nil
            context.fireChannelRead(wrapInboundOut(bytes))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func endWhenSent(context: ChannelHandlerContext) {
        ending = true
        if answersInFlight == 0 { end(context: context) }
    }

    /// Ends the connection through the handlers behind (NIO's decoder, which has seen no byte,
    /// passes the event on to the upgrade handler): told the input is closed before any request
    /// reached it, it closes the connection and tells Hummingbird's connection task
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
        if answersInFlight > 0 {
            // Busy: the answer's end counts as activity, so look again a timeout later.
            scheduleIdleCheck(context: context, at: .now() + idleTimeout)
        } else if lastActivity + idleTimeout > .now() {
            scheduleIdleCheck(context: context, at: lastActivity + idleTimeout)
        } else {
            end(context: context)
        }
    }
}
