import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The loop both discovery services run: listen on a UDP port, answer each datagram with what
/// `replies` says (often nothing: malformed packets are dropped), until the server stops. A port
/// that cannot be bound is logged and the server runs on without this service.
enum UDPResponder {
    typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    static func run(
        name: String, host: String, port: Int, shareAddress: Bool = false, logger: Logger,
        prepare: (Datagrams) async -> Void = { _ in },
        replies: @escaping (AddressedEnvelope<ByteBuffer>) async -> [AddressedEnvelope<ByteBuffer>]
    ) async throws {
        let channel: Datagrams
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: shareAddress ? 1 : 0)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
                }
        } catch {
            logger.warning("\(name) is off: cannot listen on UDP \(host):\(port) (\(error)); is another program on it?")
            try? await gracefulShutdown()
            return
        }
        await prepare(channel)
        logger.info("\(name) answers on UDP \(host):\(port)")
        try await withGracefulShutdownHandler {
            try await channel.executeThenClose { inbound, outbound in
                for try await envelope in inbound {
                    for reply in await replies(envelope) { try? await outbound.write(reply) }
                }
            }
        } onGracefulShutdown: {
            channel.channel.close(promise: nil)
        }
    }
}
