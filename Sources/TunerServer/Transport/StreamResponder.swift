import Hummingbird

/// The server's responder: `GET` and `HEAD /stream/…` go through the same middleware as every
/// other request straight to the stream proxy, everything else to the router.
///
/// The router finds a route by walking the path's components in its trie; a proxy URL carries
/// a sealed payload of a few hundred bytes, and that walk was about 6 % of a small cached
/// answer's CPU. The stream paths have two shapes, read here with one split of the UTF-8 bytes.
/// What the request meets is unchanged: the same middleware instances, in the router's order,
/// and the route and parameters the router would have set (for metrics and the handlers).
struct StreamResponder<Fallback: HTTPResponder>: HTTPResponder where Fallback.Context == TunerRequestContext {
    typealias Context = TunerRequestContext

    /// The router's responder, for every other request.
    let fallback: Fallback
    /// The router's middleware, outermost first.
    let middleware: [any MiddlewareProtocol<Request, Response, Context>]
    let streams: StreamController

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head,
            let parts = StreamPaths.components(request.uri.path)
        else {
            return try await fallback.respond(to: request, context: context)
        }
        var context = context
        var parameters = Parameters()
        parameters.append(key: "signature", value: parts[0])
        parameters.append(key: "payload", value: parts[1])
        parameters.append(key: "name", value: parts[2])
        if parts.count == 4 { parameters.append(key: "file", value: parts[3]) }
        context.coreContext.parameters = parameters
        context.coreContext.endpointPath.value = parts.count == 3 ? StreamPaths.streamRoute : StreamPaths.segmentRoute
        let handler = parts.count == 3 ? streams.stream : streams.segment
        do {
            return try await run(0, request, context, handler)
        } catch let error as any HTTPResponseError {
            // As the router answers a thrown error that escaped its middleware.
            return try error.response(from: request, context: context)
        }
    }

    private func run(
        _ index: Int, _ request: Request, _ context: Context,
        _ handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard index < middleware.count else { return try await handler(request, context) }
        return try await middleware[index].handle(request, context: context) { request, context in
            try await run(index + 1, request, context, handler)
        }
    }
}

/// The stream proxy's two path shapes, read without the router (``StreamResponder``,
/// ``StreamFastPath``).
enum StreamPaths {
    /// The routes as the router names them (in metrics).
    static let streamRoute = "/stream/{signature}/{payload}/{name}"
    static let segmentRoute = "/stream/{signature}/{payload}/{name}/{file}"

    /// The components after `/stream/` of a stream URL (three, or four for a playlist's
    /// segment), or nil for any other path, which the router then answers (and refuses) as before.
    static func components(_ path: String) -> [Substring]? {
        guard path.hasPrefix("/stream/") else { return nil }
        let parts = path.utf8.dropFirst(8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        return parts.map { Substring($0) }
    }
}
