import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TunerAPI
import TunerApp

/// Live channels over HTTP: the streams list (`GET /api/v1/streams`, `DELETE /api/v1/streams/{id}`)
/// and the one way every route answers a live channel: a viewer of its session, streamed.
struct LiveController {
    let engine: TunerEngine

    func addRoutes(to router: Router<TunerRequestContext>) {
        let api = router.group("/api/v1")
        api.get("streams") { [engine] _, _ in LiveStreamList(streams: engine.live.streams) }
        api.get("channels/:id/alternatives") { [engine] _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let (items, chosen) = try await CatalogController.answering { try await engine.live.alternatives(of: id) }
            return AlternativeList(chosen: chosen, alternatives: items)
        }
        api.put("channels/:id/alternatives") { [engine] request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let body = try await request.decode(as: AlternativesRequest.self, context: context)
            try await CatalogController.answering { try await engine.live.setAlternatives(of: id, to: body.ids) }
            let (items, chosen) = try await CatalogController.answering { try await engine.live.alternatives(of: id) }
            return AlternativeList(chosen: chosen, alternatives: items)
        }
        api.delete("streams/:id") { [engine] _, context in
            let id = try context.parameters.require("id")
            try await CatalogController.answering { try await engine.live.stop(id: id) }
            return Response(status: .noContent)
        }
    }

    /// The profile a request asks for: `?profile=direct|remux|transcode`, or HDHomeRun's
    /// `?transcode=` (`native`/`none` plays as is, any size such as `internet540` transcodes);
    /// `fallback` otherwise.
    static func profile(of request: Request, fallback: StreamProfile = .direct) throws -> StreamProfile {
        let query = request.uri.queryParameters
        if let text = query["profile"] {
            guard let profile = StreamProfile(rawValue: String(text).lowercased()) else {
                throw HTTPError(.badRequest, message: "profile must be direct, remux or transcode")
            }
            return profile
        }
        if let size = query["transcode"]?.lowercased() {
            return size == "native" || size == "none" || size.isEmpty ? .direct : .transcode
        }
        return fallback
    }

    /// The client's address as this server saw it (no port).
    static func address(of context: TunerRequestContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Watches a live channel and streams it: MPEG-TS, no length, no caching. A HEAD request gets
    /// the head alone and opens nothing.
    static func stream(
        _ request: LiveSessions.Request, engine: TunerEngine, head: Bool
    ) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "video/mp2t"
        headers[.cacheControl] = "no-cache, no-store"
        if head { return Response(status: .ok, headers: headers) }
        let viewer = try await CatalogController.answering { try await engine.live.watch(request) }
        // The answer waits for the first bytes: a channel that cannot be played gets a reason,
        // not a 200 with nothing after it.
        guard let first = await viewer.next() else {
            viewer.close()
            throw HTTPError(
                .badGateway,
                message: "channel \(request.channelID) cannot be played now: \(viewer.session.endReason ?? "it ended")")
        }
        headers[HTTPField.Name("X-Tuner-Session")!] = viewer.session.id
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { viewer.close() }
                for part in first { try await writer.write(part) }
                while let parts = await viewer.next() {
                    for part in parts { try await writer.write(part) }
                }
                try await writer.finish(nil)
            })
    }
}

extension LiveStreamList: ResponseEncodable {}

/// `GET`/`PUT /api/v1/channels/{id}/alternatives`: what a channel fails over to, in order.
struct AlternativeList: ResponseEncodable {
    /// Whether the user chose them (else they were found by tvg-id and name).
    var chosen: Bool
    var alternatives: [CatalogItem]
}

/// `PUT /api/v1/channels/{id}/alternatives {"ids": [7, 12]}`; `[]` goes back to automatic ones.
struct AlternativesRequest: Decodable {
    var ids: [Int64]
}
