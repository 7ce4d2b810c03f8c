import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A fake Xtream Codes panel on 127.0.0.1 (random port), answering `player_api.php` and
/// `xmltv.php` from JSON and XML documents the test sets, the way real panels do: numbers
/// sometimes as strings, wrong credentials answered with `200` and `auth: 0`.
///
/// Routes: `GET /player_api.php?username=U&password=P[&action=A…]` → `responses["A:ID"]` when the
/// request names an item (`vod_id`, `series_id` or `stream_id` = ID), else `responses[A]` (no
/// action: the account info); `get_short_epg` keeps the first `limit` of its `epg_listings`, like
/// panels; `GET /xmltv.php?username=U&password=P` → `guide`; `GET /live|movie|series/U/P/ID.ext` →
/// ``streamBody(kind:file:)`` (403 with other credentials). Anything else: 404.
public final class XtreamFake: Sendable {
    public let port: Int
    public let username: String
    public let password: String
    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let channel: any Channel
    private let state: LockedState

    struct State {
        var responses: [String: String] = [:]
        var guide = "<tv></tv>"
        var requests: [String] = []
        /// Open connections, so that ``XtreamFake/shutdown()`` ends kept-alive ones too.
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    /// The fake's mutable state, shared by its connections.
    final class LockedState: @unchecked Sendable {
        private let lock = Mutex(())
        private var value: State
        init(_ value: State) { self.value = value }
        func withLockedValue<T>(_ body: (inout State) -> T) -> T {
            lock.withLock { _ in body(&value) }
        }
    }

    private init(channel: any Channel, port: Int, username: String, password: String, state: LockedState) {
        self.channel = channel
        self.port = port
        self.username = username
        self.password = password
        self.state = state
    }

    /// Starts listening; `responses` maps an action (`get_live_streams`, …) to its JSON body.
    public static func start(
        username: String = "user", password: String = "pass", responses: [String: String] = [:],
        guide: String = "<tv></tv>"
    ) async throws -> XtreamFake {
        let state = LockedState(State(responses: responses, guide: guide))
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let key = ObjectIdentifier(channel)
                state.withLockedValue { $0.connections[key] = channel }
                channel.closeFuture.whenComplete { _ in
                    _ = state.withLockedValue { $0.connections.removeValue(forKey: key) }
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        XtreamFakeHandler(username: username, password: password, state: state))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return XtreamFake(channel: channel, port: port, username: username, password: password, state: state)
    }

    /// Replaces the body of one action.
    public func setResponse(_ json: String, for action: String) {
        state.withLockedValue { $0.responses[action] = json }
    }

    /// What the fake serves for a stream (`kind` is live, movie or series; `file` such as
    /// `5001.mp4`): 1,024 bytes that name it, so a test can tell which stream it got.
    public static func streamBody(kind: String, file: String) -> String {
        let line = "\(kind)/\(file)\n"
        return String(String(repeating: line, count: 1024 / line.utf8.count + 1).utf8.prefix(1024))!
    }

    /// The request targets received so far, in order.
    public var requests: [String] { state.withLockedValue { $0.requests } }

    /// Stops listening and closes open connections: a client then finds the panel gone, as
    /// when a provider's server goes down.
    public func shutdown() async throws {
        try await channel.close()
        for connection in state.withLockedValue({ Array($0.connections.values) }) {
            try? await connection.close()
        }
    }
}

/// Answers one connection of ``XtreamFake``.
final class XtreamFakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let username: String
    let password: String
    let state: XtreamFake.LockedState
    private var head: HTTPRequestHead?

    init(username: String, password: String, state: XtreamFake.LockedState) {
        self.username = username
        self.password = password
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let requestHead): head = requestHead
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let (status, type, body) = respond(to: head.uri)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: type)
            headers.add(name: "Content-Length", value: "\(body.utf8.count)")
            context.write(
                Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    private func respond(to uri: String) -> (HTTPResponseStatus, String, String) {
        state.withLockedValue { $0.requests.append(uri) }
        let parts = uri.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? ""
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let keyValue = pair.split(separator: "=", maxSplits: 1)
            query[String(keyValue[0])] =
                keyValue.count > 1 ? String(keyValue[1]).xtreamPercentDecoded ?? String(keyValue[1]) : ""
        }
        let authorised = query["username"] == username && query["password"] == password
        switch path {
        case "/player_api.php":
            guard authorised else { return (.ok, "application/json", #"{"user_info":{"auth":0}}"#) }
            guard let action = query["action"] else {
                return (
                    .ok, "application/json",
                    #"{"user_info":{"auth":1,"status":"Active","username":"\#(username)"},"#
                        + #""server_info":{"url":"127.0.0.1"}}"#
                )
            }
            // Per-item actions (get_vod_info, get_series_info, get_short_epg) look for
            // "action:id" first, so a test can answer each movie or series differently.
            let itemID = query["vod_id"] ?? query["series_id"] ?? query["stream_id"]
            let body =
                state.withLockedValue { state in
                    itemID.flatMap { state.responses["\(action):\($0)"] } ?? state.responses[action]
                } ?? "[]"
            if action == "get_short_epg", let limit = query["limit"].flatMap(Int.init) {
                return (.ok, "application/json", Self.firstListings(body, limit: limit))
            }
            return (.ok, "application/json", body)
        case "/xmltv.php":
            guard authorised else { return (.forbidden, "text/plain", "forbidden") }
            return (.ok, "application/xml", state.withLockedValue { $0.guide })
        default:
            // Streams: /live|movie|series/U/P/ID.ext, like a panel's.
            let segments = path.split(separator: "/").map(String.init)
            guard segments.count == 4, Self.streamKinds.contains(segments[0]) else {
                return (.notFound, "text/plain", "not found")
            }
            guard segments[1].xtreamPercentDecoded == username, segments[2].xtreamPercentDecoded == password else {
                return (.forbidden, "text/plain", "forbidden")
            }
            return (.ok, "video/mp2t", XtreamFake.streamBody(kind: segments[0], file: segments[3]))
        }
    }
}

extension XtreamFakeHandler {
    static let streamKinds: Set<String> = ["live", "movie", "series"]

    /// `get_short_epg` answers at most `limit` listings (panels default to 4), as panels do.
    static func firstListings(_ body: String, limit: Int) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any],
            let listings = object["epg_listings"] as? [Any], listings.count > limit,
            limit >= 0
        else { return body }
        object["epg_listings"] = Array(listings.prefix(limit))
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { return body }
        return String(decoding: data, as: UTF8.self)
    }
}

extension String {
    fileprivate var xtreamPercentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
