import Hummingbird

/// Sends every request but the stream proxy's back to Swift's global pool.
///
/// A connection's task prefers its event loop (``EventLoopTaskExecutor``), which is what makes
/// small cached answers cheap. The API, pages and outputs may do longer work in their handlers
/// (building a 12,000-channel M3U, an import's first steps): on the pool, as before, that work
/// cannot hold up the other connections of a loop. Stream requests stay on the loop; their own
/// heavy parts (playlist parsing and rewriting) move to the pool where they happen.
struct RouteExecutorMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if request.uri.path.hasPrefix("/stream/") { return try await next(request, context) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await next(request, context) }
    }
}
