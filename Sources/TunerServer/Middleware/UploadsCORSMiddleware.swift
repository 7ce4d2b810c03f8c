import HTTPTypes
import Hummingbird

/// Cross-origin access to the tus endpoint (`/api/v1/uploads`), so a web page on another origin
/// (tus-js-client) can upload: the preflight is answered here with the tus capabilities, and every
/// answer to a request with an allowed `Origin` says which headers the page may send and read.
///
/// It sits in front of the access-token check: browsers send preflights without credentials, and
/// a refusal (401) must carry these headers too, or the page only sees a network error.
struct UploadsCORSMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    /// Origins allowed to use the endpoint; `*` allows any.
    let allowedOrigins: [String]
    /// What the endpoint's own OPTIONS answer says (Tus-Version, Tus-Extension, Tus-Max-Size, …).
    let capabilities: @Sendable () -> HTTPFields

    static let path = "/api/v1/uploads"
    static let allowMethods = "POST, GET, HEAD, PATCH, DELETE, OPTIONS"
    /// What tus-js-client sends, as tusd allows it.
    static let allowHeaders = [
        "Authorization", "Origin", "X-Requested-With", "X-Request-ID", "X-HTTP-Method-Override", "Content-Type",
        "Upload-Length", "Upload-Offset", "Tus-Resumable", "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat",
        "Upload-Checksum",
    ].joined(separator: ", ")
    /// What tus-js-client reads from answers; a browser hides every other header from the page.
    static let exposeHeaders = [
        "Upload-Offset", "Location", "Upload-Length", "Tus-Version", "Tus-Resumable", "Tus-Max-Size", "Tus-Extension",
        "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat", "Upload-Expires", "Upload-Checksum",
    ].joined(separator: ", ")
    /// Seconds a browser may reuse a preflight's answer.
    static let maxAge = "86400"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        guard path == Self.path || path.hasPrefix(Self.path + "/"),
            let origin = request.headers[.origin], let allowed = allowedOrigin(origin)
        else {
            // Not the tus endpoint, not a browser's cross-origin request, or an origin not
            // allowed: no CORS headers, so the browser keeps the page out.
            return try await next(request, context)
        }
        let cors = Self.headers(allowing: allowed)
        if request.method == .options {
            var headers = capabilities()
            headers.append(contentsOf: cors)
            return Response(status: .noContent, headers: headers)
        }
        do {
            var response = try await next(request, context)
            response.headers.append(contentsOf: cors)
            return response
        } catch let error as any HTTPResponseError {
            throw HeadedError(original: error, headers: cors)
        }
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, or nil when it is not allowed.
    func allowedOrigin(_ origin: String) -> String? {
        if allowedOrigins.contains("*") { return origin }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    static func headers(allowing origin: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowMethods] = allowMethods
        headers[.accessControlAllowHeaders] = allowHeaders
        headers[.accessControlExposeHeaders] = exposeHeaders
        headers[.accessControlMaxAge] = maxAge
        // The answer depends on the Origin, so caches must keep one per origin.
        headers[.vary] = "Origin"
        return headers
    }

    /// An error answer with the CORS headers added, so the page can read why it was refused.
    struct HeadedError: HTTPResponseError {
        let original: any HTTPResponseError
        let headers: HTTPFields

        var status: HTTPResponse.Status { original.status }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            var response = try original.response(from: request, context: context)
            response.headers.append(contentsOf: headers)
            return response
        }
    }
}
