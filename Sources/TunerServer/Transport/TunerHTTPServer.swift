import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The main port's listener: accepts connections on every event loop and starts Hummingbird's
/// handling of a connection only when it needs it.
///
/// Hummingbird's own server gives every connection a task, reached through an async channel of
/// accepted connections, and places it on the next event loop: about eight thread switches per
/// connection before its first answer (measured: 8.3 against nginx's 2), which is most of what a
/// player that opens a connection per segment waits for. Here each event loop accepts from one
/// shared listening socket (as nginx's workers do) and keeps the connections it accepts, and a
/// connection runs no task while ``StreamFrontHandler`` answers it alone; at its first request
/// for Hummingbird the connection's value is handed to ``run()``, which starts its task as
/// Hummingbird's server would.
///
/// At graceful shutdown the listeners close and every connection is asked to finish the answer
/// it is sending and close (`ChannelShouldQuiesceEvent`, as Hummingbird's server does); `run`
/// returns once they all have.
struct TunerHTTPServer: Service {
    let host: String
    let port: Int
    let backlog: Int32
    let connections: TunerHTTPChannel
    let eventLoopGroup: MultiThreadedEventLoopGroup
    /// Called with the first listener once every listener accepts.
    let onServerRunning: @Sendable (any Channel) async -> Void
    let logger: Logger

    func run() async throws {
        let (handOffs, handOffSink) = AsyncStream.makeStream(of: TunerHTTPChannel.Value.self)
        let listeners = try await openListeners { handOffSink.yield($0) }
        let shutdown = ShutdownOnce(listeners: listeners, eventLoop: eventLoopGroup.next()) { handOffSink.finish() }
        logger.info(
            "Server started and listening on \(host):\(listeners[0].channel.localAddress?.port ?? port)",
            metadata: ["listeners": "\(listeners.count)"])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await onServerRunning(listeners[0].channel)
                let connections = self.connections
                let logger = self.logger
                await withDiscardingTaskGroup { group in
                    for await value in handOffs {
                        group.addTask { await connections.handle(value: value, logger: logger) }
                    }
                }
            } onGracefulShutdown: {
                shutdown.begin()
            }
        } onCancel: {
            shutdown.begin()
        }
    }

    /// A listening channel and the helper that quiesces the connections it accepted.
    struct Listener {
        let channel: any Channel
        let quiescing: ServerQuiescingHelper
    }

    /// Opens a listening socket and its server channel for each event loop: on Linux sockets that
    /// share the port (`SO_REUSEPORT`: the kernel spreads new connections over them, and wakes
    /// only the loop whose socket has one), elsewhere one socket on one loop.
    private func openListeners(handOff: @escaping @Sendable (TunerHTTPChannel.Value) -> Void) async throws
        -> [Listener]
    {
        #if os(Linux)
            let loops = Array(eventLoopGroup.makeIterator())
        #else
            let loops = [eventLoopGroup.next()]
        #endif
        let sharing = loops.count > 1
        if sharing, port != 0 {
            // Sockets that share a port also share it with any other process of this user that
            // asks to: a plain bind first fails, as without sharing, when the port is taken.
            _ = close(try Self.listeningSocket(host: host, port: port, backlog: backlog, sharingPort: false))
        }
        var listeners: [Listener] = []
        var boundPort = port
        do {
            for loop in loops {
                let descriptor = try Self.listeningSocket(
                    host: host, port: boundPort, backlog: backlog, sharingPort: sharing)
                let listener = try await listener(on: loop, descriptor: descriptor, handOff: handOff)
                listeners.append(listener)
                boundPort = listener.channel.localAddress?.port ?? boundPort
            }
        } catch {
            for listener in listeners { try? await listener.channel.close() }
            throw error
        }
        return listeners
    }

    private func listener(
        on loop: any EventLoop, descriptor: CInt, handOff: @escaping @Sendable (TunerHTTPChannel.Value) -> Void
    ) async throws -> Listener {
        let quiescing = ServerQuiescingHelper(group: loop)
        let connections = self.connections
        let logger = self.logger
        let channel = try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(.backlog, value: backlog)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                connections.setup(channel: channel, logger: logger, handOff: handOff).map { _ in }
            }
            .withBoundSocket(descriptor)
            .get()
        return Listener(channel: channel, quiescing: quiescing)
    }

    /// A bound, listening TCP socket for `host:port` (port 0: any free one), with `SO_REUSEADDR`
    /// as Hummingbird sets it (a restart need not wait for old connections' `TIME_WAIT`), and
    /// `SO_REUSEPORT` when `sharingPort`.
    static func listeningSocket(host: String, port: Int, backlog: Int32, sharingPort: Bool) throws -> CInt {
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        #if canImport(Glibc)
            let descriptor = socket(
                address.protocol.rawValue, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(address.protocol.rawValue, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        var one: CInt = 1
        let size = socklen_t(MemoryLayout<CInt>.size)
        let bound =
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0
            && (!sharingPort || setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &one, size) == 0)
            && address.withSockAddr { bind(descriptor, $0, socklen_t($1)) } == 0
            && listen(descriptor, backlog) == 0
        guard bound else {
            let code = errno
            _ = close(descriptor)
            throw IOError(errnoCode: code, reason: "bind to \(host):\(port)")
        }
        return descriptor
    }
}

/// Begins the shutdown once (graceful shutdown and cancellation may both ask): quiesces every
/// listener's connections, then calls `finished`.
private final class ShutdownOnce: Sendable {
    private let listeners: [TunerHTTPServer.Listener]
    private let eventLoop: any EventLoop
    private let finished: @Sendable () -> Void
    private let begun = NIOLockedValueBox(false)

    init(listeners: [TunerHTTPServer.Listener], eventLoop: any EventLoop, finished: @escaping @Sendable () -> Void) {
        self.listeners = listeners
        self.eventLoop = eventLoop
        self.finished = finished
    }

    func begin() {
        guard
            begun.withLockedValue({ begun in
                defer { begun = true }
                return !begun
            })
        else { return }
        let closed = listeners.map { listener in
            let promise = listener.channel.eventLoop.makePromise(of: Void.self)
            listener.quiescing.initiateShutdown(promise: promise)
            return promise.futureResult
        }
        EventLoopFuture.whenAllComplete(closed, on: eventLoop).whenComplete { [finished] _ in finished() }
    }
}
