import Foundation  // for `linger`, from the C library
import NIOCore
import NIOHTTP1

/// Writes one planned response on its connection's event loop: the optional delay, the head, the
/// body in chunks, then the planned ending.
///
/// At most two chunk writes are outstanding (one with `drip`), and the next chunk is only produced
/// when a write completes, so a slow client holds back generation instead of making the server
/// buffer the whole body. Everything here runs on the channel's event loop, which is why the
/// class needs no locks and uses `assumeIsolated()` callbacks.
final class ResponseStreamer {
    private static let defaultChunkLength = 256 * 1024
    /// Chunks produced before the event loop gets a turn for its other work.
    private static let chunksPerTurn = 4

    private let context: ChannelHandlerContext
    private let plan: ResponsePlan
    private let state: OriginState
    private let maximumWritesInFlight: Int
    private let chunkLength: Int

    /// The next source offset to read.
    private var cursor: Int
    private var writesInFlight = 0
    private var isReading = false
    private var isPausing = false
    /// Set once the response is finished or abandoned; late callbacks then do nothing.
    private var isDone = false
    /// A trampoline: completions that arrive synchronously inside `pump()` (already-written
    /// writes, ready bytes) only ask for another turn, so a fast client cannot make the stack grow
    /// one frame per chunk.
    private var isPumping = false
    private var needsPump = false
    /// The pending delay or drip pause, cancelled with the response so a long `delay=` does not
    /// keep a dead connection's state alive until it fires.
    private var timer: Scheduled<Void>?
    /// Chunks produced since this response last let the event loop run its other work. With a
    /// fast client every write completes at once and the next chunk follows in the same turn,
    /// so a large body would keep the loop (shared by every connection and timer of the tests
    /// in this process: a drip's pauses, other origins, HTTP clients) to itself for seconds.
    private var chunksThisTurn = 0
    private var isYielding = false

    init(context: ChannelHandlerContext, plan: ResponsePlan, state: OriginState) {
        self.context = context
        self.plan = plan
        self.state = state
        self.cursor = plan.bodyRange.lowerBound
        self.maximumWritesInFlight = plan.drip == nil ? 2 : 1
        self.chunkLength = plan.drip?.bytes ?? Self.defaultChunkLength
    }

    func start() {
        if let delay = plan.delay {
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { self.writeHead() }
        } else {
            writeHead()
        }
    }

    /// Stops producing; called when the connection goes away.
    func cancel() {
        isDone = true
        timer?.cancel()
        timer = nil
    }

    private func writeHead() {
        guard !isDone else { return }
        write(.head(plan.head), bodyBytes: 0)
        pump()
    }

    private func pump() {
        if isPumping {
            needsPump = true
            return
        }
        isPumping = true
        repeat {
            needsPump = false
            step()
        } while needsPump
        isPumping = false
    }

    private func step() {
        guard !isDone else { return }
        guard cursor < plan.bodyRange.upperBound else {
            if writesInFlight == 0, !isReading {
                finish()
            }
            return
        }
        guard !isReading, !isPausing, !isYielding, writesInFlight < maximumWritesInFlight else { return }
        if chunksThisTurn >= Self.chunksPerTurn {
            // Go on after the loop's pending I/O and tasks (a task added now runs next turn).
            isYielding = true
            context.eventLoop.assumeIsolated().execute {
                self.isYielding = false
                self.chunksThisTurn = 0
                self.pump()
            }
            return
        }
        chunksThisTurn += 1

        let offset = cursor
        let count = min(chunkLength, plan.bodyRange.upperBound - offset)
        isReading = true
        plan.source.read(
            offset: offset, count: count, allocator: context.channel.allocator, eventLoop: context.eventLoop
        )
        .assumeIsolated()
        .whenComplete { result in
            self.isReading = false
            guard !self.isDone else { return }
            switch result {
            case .success(let buffer):
                self.cursor = offset + count
                self.write(.body(.byteBuffer(buffer)), bodyBytes: count)
            case .failure:
                // The head already promised these bytes; closing is the only honest signal left.
                self.isDone = true
                self.context.close(promise: nil)
            }
            self.pump()
        }
    }

    private func write(_ part: HTTPServerResponsePart, bodyBytes: Int) {
        writesInFlight += 1
        context.writeAndFlush(NIOAny(part))
            .assumeIsolated()
            .whenComplete { result in
                self.writesInFlight -= 1
                switch result {
                case .success:
                    // Counted only once the socket took the bytes, so a reset or a vanished
                    // client leaves exactly what was really sent.
                    if bodyBytes > 0, self.plan.source.isContent {
                        self.state.addBodyBytes(bodyBytes, path: self.plan.path)
                    }
                    if bodyBytes > 0, let drip = self.plan.drip {
                        self.isPausing = true
                        self.timer = self.context.eventLoop.assumeIsolated().scheduleTask(in: drip.pause) {
                            self.isPausing = false
                            self.pump()
                        }
                    }
                case .failure:
                    // The client went away or the connection closed.
                    self.isDone = true
                }
                self.pump()
            }
    }

    private func finish() {
        isDone = true
        let channel = context.channel
        switch plan.ending {
        case .complete(let keepAlive):
            let ended = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
            if !keepAlive {
                ended.whenComplete { _ in channel.close(promise: nil) }
            }
        case .hold:
            // The response stays unfinished; the client's close ends it.
            break
        case .close(let hard):
            // A FIN arrives after every byte already written; an RST (SO_LINGER 0) may discard
            // bytes still in the kernel's send buffer, which is why it is opt-in.
            if hard, let options = channel as? any SocketOptionProvider {
                options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }
}
