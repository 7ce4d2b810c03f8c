import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A fake IPTV provider's live channels: `GET /<name>.ts` streams an endless MPEG-TS in real
/// time (a short file made by ffmpeg, looped with its clock and counters carried on; see
/// ``LiveTSLoop``), as providers do, with no length and no end. A test can make a channel
/// misbehave while viewers are connected — stall, send garbage, send bytes without progress, or
/// die — and count the connections each channel has had, so "one upstream per channel" is
/// checked where it matters.
public final class LiveTSOrigin: Sendable {
    /// How a channel behaves from now on, for every connection.
    public enum Mode: String, Sendable {
        /// Packets in real time.
        case normal
        /// Nothing more is sent; connections stay open.
        case stall
        /// Random bytes at the same rate: not a transport stream.
        case garbage
        /// Null packets only: bytes flow, the clock never moves (no pictures).
        case frozen
        /// Open connections are closed and new ones are answered 503.
        case dead
    }

    struct Channel {
        var loop: LiveTSLoop
        var bytesPerSecond: Int
        var mode: Mode = .normal
        var connections = 0
        var open = 0
        /// Bytes written to this channel's connections, all of them together.
        var sent: Int64 = 0
    }

    public let port: Int
    private let serverChannel: any NIOCore.Channel
    private let channels = NIOLockedValueBox<[String: Channel]>([:])
    /// Open connections per channel name, so `.dead` can close them.
    private let connections = NIOLockedValueBox<[String: [ObjectIdentifier: any NIOCore.Channel]]>([:])

    private init(serverChannel: any NIOCore.Channel, port: Int) {
        self.serverChannel = serverChannel
        self.port = port
    }

    /// Starts listening on 127.0.0.1 at a free port.
    /// Listens on `host` (loopback unless a test's network namespace names its own address) and
    /// `port` (0: a free one).
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> LiveTSOrigin {
        let box = NIOLockedValueBox<LiveTSOrigin?>(nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        LiveTSHandler(origin: { box.withLockedValue { $0 } }))
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        let origin = LiveTSOrigin(serverChannel: channel, port: channel.localAddress?.port ?? 0)
        box.withLockedValue { $0 = origin }
        return origin
    }

    /// Serves `file` (MPEG-TS lasting `seconds`) as channel `name` at `/<name>.ts`; `verbatim`
    /// loops its bytes as they are (counters and clock jump back every round, see ``LiveTSLoop``).
    public func serve(_ name: String, file: String, seconds: Double, verbatim: Bool = false) throws {
        let loop = try LiveTSLoop(path: file, seconds: seconds, verbatim: verbatim)
        channels.withLockedValue {
            $0[name] = Channel(loop: loop, bytesPerSecond: loop.bytesPerSecond(seconds: seconds))
        }
    }

    /// The URL of channel `name`.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name).ts" }

    /// Changes how channel `name` behaves, for open connections too.
    public func set(_ name: String, _ mode: Mode) {
        channels.withLockedValue { $0[name]?.mode = mode }
        if mode == .dead {
            let open = connections.withLockedValue { $0[name].map { Array($0.values) } ?? [] }
            for channel in open { channel.close(promise: nil) }
        }
    }

    /// Connections channel `name` has accepted since it was added.
    public func connectionCount(_ name: String) -> Int { channels.withLockedValue { $0[name]?.connections ?? 0 } }

    /// Bytes channel `name` has written to its connections since it was added.
    public func bytesSent(_ name: String) -> Int64 { channels.withLockedValue { $0[name]?.sent ?? 0 } }

    /// Connections to channel `name` open now.
    public func openConnections(_ name: String) -> Int { channels.withLockedValue { $0[name]?.open ?? 0 } }

    public func shutdown() async {
        let open = connections.withLockedValue { $0.values.flatMap { Array($0.values) } }
        for channel in open { channel.close(promise: nil) }
        try? await serverChannel.close()
    }

    /// Makes a small live-like MPEG-TS with ffmpeg: `seconds` of a test picture (H.264, a keyframe
    /// every second, the random access flag set) and a tone (AAC), with PIDs from `firstPID`, so
    /// channels made with different ones can be told apart; `audioTracks` copies of the tone (at
    /// bitrates from 24 kb/s up) make as many audio PIDs, as a channel with many languages has.
    public static func makeStream(
        at path: String, seconds: Int = 4, firstPID: Int = 0x100, serviceID: Int = 1, size: String = "320x180",
        audioTracks: Int = 1
    ) async throws {
        guard let ffmpeg = ExternalCommand.path(of: "ffmpeg") else {
            throw LiveTSOriginError.ffmpegFailed("ffmpeg is not installed (apt-get install ffmpeg)")
        }
        var arguments = [
            "-hide_banner", "-nostdin", "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)",
        ]
        if audioTracks > 1 {
            arguments += ["-map", "0:v"]
            for _ in 0..<audioTracks { arguments += ["-map", "1:a"] }
        }
        arguments += [
            "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "baseline", "-pix_fmt", "yuv420p",
            "-g", "25", "-keyint_min", "25", "-sc_threshold", "0", "-b:v", "300k",
            // SPS and PPS before every keyframe, as broadcasters send them: a player may start at any.
            "-x264-params", "repeat-headers=1",
            "-c:a", "aac", "-b:a", "32k", "-ac", "1",
        ]
        if audioTracks > 1 {
            // Bitrates apart, as real tracks have, so each ends the file at its own counter.
            for track in 0..<audioTracks { arguments += ["-b:a:\(track)", "\(24 + 4 * track)k"] }
        }
        arguments += [
            "-f", "mpegts", "-mpegts_flags", "+resend_headers", "-mpegts_start_pid", String(firstPID),
            "-mpegts_pmt_start_pid", String(0x1000 + serviceID),
            "-mpegts_service_id", String(serviceID), path,
        ]
        let result = try await ExternalCommand.run(ffmpeg, arguments, timeout: .seconds(120))
        guard result.succeeded else { throw LiveTSOriginError.ffmpegFailed(result.transcript) }
    }

    // MARK: - Used by the handler

    func connect(_ name: String, _ channel: any NIOCore.Channel) -> (LiveTSLoop, Int)? {
        let found = channels.withLockedValue { channels -> (LiveTSLoop, Int)? in
            guard var entry = channels[name], entry.mode != .dead else { return nil }
            entry.connections += 1
            entry.open += 1
            channels[name] = entry
            return (entry.loop, entry.bytesPerSecond)
        }
        if found != nil {
            connections.withLockedValue { $0[name, default: [:]][ObjectIdentifier(channel)] = channel }
        }
        return found
    }

    func disconnect(_ name: String, _ channel: any NIOCore.Channel) {
        channels.withLockedValue { $0[name]?.open -= 1 }
        connections.withLockedValue { _ = $0[name]?.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func mode(_ name: String) -> Mode { channels.withLockedValue { $0[name]?.mode ?? .dead } }

    func wrote(_ name: String, _ count: Int) { channels.withLockedValue { $0[name]?.sent += Int64(count) } }
}

/// One connection: answers the request head, then writes the channel's packets every 20 ms at
/// its rate (half a second at once first, as providers burst), skipping turns while the client
/// is not reading. The rate is kept by the clock, as a provider's encoder keeps it: a late turn
/// (a loaded machine) sends what the clock says is due, so the stream stays real time on
/// average; what a client that stopped reading missed is made up for one second at most.
final class LiveTSHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let origin: @Sendable () -> LiveTSOrigin?
    private var name: String?
    private var timer: RepeatedTask?
    private var cursor = LiveTSLoop.Cursor()
    /// Bytes counted as sent since the connection began (the clock says what is due).
    private var sent = 0
    private var random = SystemRandomNumberGenerator()

    init(origin: @escaping @Sendable () -> LiveTSOrigin?) { self.origin = origin }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), name == nil else { return }
        let path = head.uri.split(separator: "?").first.map(String.init) ?? head.uri
        // `/count/<name>`: "<connections ever> <open now>", for tests whose provider runs in
        // another network namespace (a process they cannot ask in memory).
        if let origin = origin(), path.hasPrefix("/count/") {
            let counted = String(path.dropFirst("/count/".count))
            return respond(
                context, .ok, body: "\(origin.connectionCount(counted)) \(origin.openConnections(counted))")
        }
        guard let origin = origin(), path.hasPrefix("/"), path.hasSuffix(".ts") else {
            return respond(context, .notFound)
        }
        let name = String(path.dropFirst().dropLast(3))
        guard let (loop, rate) = origin.connect(name, context.channel) else {
            return respond(context, .serviceUnavailable)
        }
        self.name = name
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "video/mp2t")
        headers.add(name: "Connection", value: "close")
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
            promise: nil)
        if head.method == .HEAD {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        let started = NIODeadline.now()
        sent = write(context, loop: loop, bytes: rate / 2, origin: origin, name: name)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) {
            _ in
            let (handler, context) = loopBound.value
            let elapsed = Int((NIODeadline.now() - started).nanoseconds / 1_000_000)
            let due = rate / 2 + rate * elapsed / 1000
            // At most a second behind: a client that stopped reading does not get a flood.
            handler.sent = max(handler.sent, due - rate)
            let owed = due - handler.sent
            guard owed >= LiveTSLoop.packetSize else { return }
            handler.sent += handler.write(context, loop: loop, bytes: owed, origin: origin, name: name)
        }
    }

    /// Writes about `bytes` (whole packets); returns how many were counted as sent (0 when the
    /// client is not reading: the turn is skipped).
    @discardableResult
    private func write(
        _ context: ChannelHandlerContext, loop: LiveTSLoop, bytes: Int, origin: LiveTSOrigin, name: String
    ) -> Int {
        guard context.channel.isActive, context.channel.isWritable else { return 0 }
        let packets = max(1, bytes / LiveTSLoop.packetSize)
        var buffer = context.channel.allocator.buffer(capacity: packets * LiveTSLoop.packetSize)
        switch origin.mode(name) {
        case .normal:
            for _ in 0..<packets { buffer.writeBytes(loop.next(&cursor)) }
        case .stall, .dead:
            // Nothing is sent, and nothing is owed: the clock moves on.
            return packets * LiveTSLoop.packetSize
        case .garbage:
            for _ in 0..<(packets * LiveTSLoop.packetSize / 8) {
                // No 0x47 at all, so nothing lines up as packets.
                var word = random.next() as UInt64
                for _ in 0..<8 {
                    let byte = UInt8(truncatingIfNeeded: word)
                    buffer.writeInteger(byte == 0x47 ? 0x48 : byte)
                    word >>= 8
                }
            }
        case .frozen:
            for _ in 0..<packets {
                buffer.writeBytes([0x47, 0x1F, 0xFF, 0x10])
                buffer.writeRepeatingByte(0xFF, count: LiveTSLoop.packetSize - 4)
            }
        }
        let written = buffer.readableBytes
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        origin.wrote(name, written)
        return packets * LiveTSLoop.packetSize
    }

    private func respond(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, body: String = "") {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if let name, let origin = origin() { origin.disconnect(name, context.channel) }
        name = nil
        context.fireChannelInactive()
    }
}
