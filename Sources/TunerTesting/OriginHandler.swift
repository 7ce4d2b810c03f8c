import NIOCore
import NIOHTTP1

/// Answers the requests of one connection, one at a time (the pipelining handler in front holds
/// back the next request until the current response has ended).
final class OriginHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let router: OriginRouter
    private let state: OriginState
    private var requestHead: HTTPRequestHead?
    private var response: ResponseStreamer?
    /// The body being received by `PUT|POST /sink/<name>`.
    private var sink: UploadSink?

    init(state: OriginState) {
        self.state = state
        self.router = OriginRouter(state: state)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
            sink = OriginRouter.sink(for: head)
        case .body(let buffer):
            // Only the sink reads request bodies; other routes ignore them.
            buffer.withUnsafeReadableBytes { sink?.update($0) }
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            if let finished = sink {
                sink = nil
                state.recordUpload(finished.finish(), name: finished.name)
            }
            let streamer = ResponseStreamer(context: context, plan: router.plan(for: head), state: state)
            response = streamer
            streamer.start()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        response?.cancel()
        response = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // The streamer holds the context, which holds this handler: break the cycle.
        response?.cancel()
        response = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Mostly a client that reset the connection; the connection is over either way.
        response?.cancel()
        response = nil
        context.close(promise: nil)
    }
}
