import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import LiveTV
import NIOCore
import TunerAPI
import TunerApp

/// Live channels over HTTP: the streams list (`GET /api/v1/streams`, `DELETE /api/v1/streams/{id}`)
/// and the one way every route answers a live channel: a viewer of its session, streamed.
struct LiveController {
    let engine: TunerEngine

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.streams) { [engine] _, _ in LiveStreamList(streams: engine.liveChannels.streams) }
        router.add(.alternatives) { [engine] _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let (items, chosen) = try await engine.liveChannels.alternatives(of: id)
            return AlternativeList(chosen: chosen, items: items)
        }
        router.add(.setAlternatives) { [engine] request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let body = try await request.decode(as: AlternativesRequest.self, context: context)
            try await engine.liveChannels.setAlternatives(of: id, to: body.ids)
            let (items, chosen) = try await engine.liveChannels.alternatives(of: id)
            return AlternativeList(chosen: chosen, items: items)
        }
        router.add(.stopStream) { [engine] _, context in
            let id = try context.parameters.require("id")
            try await engine.liveChannels.stop(id: id)
            return Response(status: .noContent)
        }
    }

    /// The profile a request asks for: `?profile=direct|remux|transcode`, or HDHomeRun's
    /// `?transcode=` (`native`/`none` plays as is, a size such as `internet540` transcodes, any
    /// other name is refused); `fallback` otherwise.
    static func profile(of request: Request, fallback: StreamProfile = .direct) throws -> StreamProfile {
        if let text = parameter("profile", of: request) {
            guard let profile = StreamProfile(rawValue: text.lowercased()) else {
                throw FeatureError(.invalid, "profile must be direct, remux or transcode")
            }
            return profile
        }
        if parameter("transcode", of: request) != nil {
            return try transcodeSize(of: request) == nil ? .direct : .transcode
        }
        return fallback
    }

    /// Query parameter `name`, percent-decoded. Players append their own query to a lineup URL
    /// that has one already (`?key=K?transcode=internet540`), so a `?` separates parameters too.
    static func parameter(_ name: String, of request: Request) -> String? {
        guard let query = request.uri.query else { return nil }
        for pair in query.split(whereSeparator: { $0 == "&" || $0 == "?" }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name else { continue }
            let value = String(parts[1])
            return value.removingPercentEncoding ?? value
        }
        return nil
    }

    /// The size HDHomeRun's `?transcode=<name>` names (see ``TranscodeSize``); nil without one or
    /// for `native`/`none`. Any other name is 400 with the list of names.
    static func transcodeSize(of request: Request) throws -> TranscodeSize? {
        guard let text = parameter("transcode", of: request) else { return nil }
        let name = text.lowercased()
        if name == "native" || name == "none" || name.isEmpty { return nil }
        guard let size = TranscodeSize(rawValue: name) else {
            throw FeatureError(.invalid, "transcode must be one of: \(TranscodeSize.names.joined(separator: ", "))")
        }
        return size
    }

    /// The longest `?duration=` taken: a week, longer than any recording a player schedules.
    static let longestDuration = 7 * 24 * 3600

    /// HDHomeRun's `?duration=<seconds>`: the viewer's stream ends after that long. Whole seconds,
    /// 1 up to ``longestDuration``; anything else is 400.
    static func duration(of request: Request) throws -> Duration? {
        guard let text = parameter("duration", of: request) else { return nil }
        guard text.count <= 7, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text),
            (1...longestDuration).contains(seconds)
        else {
            throw FeatureError(.invalid, "duration must be whole seconds, from 1 to \(longestDuration)")
        }
        return .seconds(seconds)
    }

    /// Plays a live channel as the player's query asks: the transcode size it names (each size is
    /// a session of its own) and, with `?duration=`, an answer that ends after that long.
    static func play(
        _ live: LiveSessions.Request, _ request: Request, engine: TunerEngine
    ) async throws -> Response {
        var live = live
        // Checked whatever the profile, so a wrong name is an error even where it would not apply.
        let size = try transcodeSize(of: request)
        if live.profile == .transcode { live.transcodeSize = size }
        let limit = try Self.duration(of: request)
        return try await stream(live, engine: engine, head: request.method == .head, duration: limit)
    }

    /// A file of an HLS session (``LiveHLSSession/file(_:for:user:)``) as its answer: the playlist
    /// is never cached (it changes with every segment), a segment for a minute; HEAD gets the head.
    static func hlsFile(_ data: Data, type: String, head: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = type == LiveHLSSession.playlistType ? "no-cache" : "max-age=60"
        return Response(
            status: .ok, headers: headers,
            body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    /// The client's address (no port): the connection's, or a trusted proxy's word for it.
    static func address(of context: TunerRequestContext) -> String {
        context.clientAddress ?? context.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Watches a live channel and streams it: MPEG-TS, no length, no caching. A HEAD request gets
    /// the head alone and opens nothing. With `duration`, the viewer leaves after that long (from
    /// its first bytes) and the answer ends there; the session goes on for the others.
    static func stream(
        _ request: LiveSessions.Request, engine: TunerEngine, head: Bool, duration: Duration? = nil
    ) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "video/mp2t"
        headers[.cacheControl] = "no-cache, no-store"
        if head { return Response(status: .ok, headers: headers) }
        let viewer = try await engine.liveChannels.watch(request)
        // The answer waits for the first bytes: a channel that cannot be played gets a reason,
        // not a 200 with nothing after it.
        guard let first = await viewer.next() else {
            viewer.close()
            let reason = viewer.session.endReason ?? "it ended"
            throw FeatureError(.upstream, "channel \(request.channelID) cannot be played now: \(reason)")
        }
        headers[HTTPField.Name("X-Tuner-Session")!] = viewer.session.id
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { viewer.close() }
                // The `duration=` timer is a child task of the answer's own (structured): it cannot
                // outlive the answer, and it ends with it however the answer ends (the player left,
                // a write failed, the server shut down).
                try await withThrowingTaskGroup(of: Void.self) { group in
                    defer { group.cancelAll() }
                    if let duration {
                        group.addTask {
                            // Leaving the session wakes a waiting read with nil: the loop below
                            // then ends the answer.
                            guard (try? await Task.sleep(for: duration)) != nil else { return }
                            viewer.close()
                        }
                    }
                    for part in first { try await writer.write(part) }
                    while let parts = await viewer.next() {
                        for part in parts { try await writer.write(part) }
                    }
                    try await writer.finish(nil)
                }
            })
    }
}

extension LiveStreamList: ResponseEncodable {}
