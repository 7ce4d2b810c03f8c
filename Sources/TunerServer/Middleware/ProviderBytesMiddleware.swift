import HTTPTypes
import Hummingbird
import MediaFormats

/// Makes every answer of the routes that carry a provider's or an origin's bytes inert in a
/// browser: `X-Content-Type-Options: nosniff`, a sandboxing `Content-Security-Policy`, and a
/// `Content-Type` that passes ``ProviderContentType`` or becomes `application/octet-stream` with
/// `Content-Disposition: attachment` (see ``makeInert(_:status:)``).
///
/// It judges by the route that answers (`context.endpointPath`), so a path spelled another way
/// cannot avoid it. The stream fast path gives the same fields its own way
/// (``StreamFastPath/encodedHead(of:allocator:)``): a test compares the two.
struct ProviderBytesMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    /// The routes whose answers carry provider bytes: the stream proxy (logos, posters,
    /// subtitles, catch-up, segments and live channels all have proxy URLs), the outputs'
    /// `/play/…`, Xtream's stream paths and uploaded logos (`/logos/…`: images by their first
    /// bytes, still someone else's bytes).
    static let routePrefixes = ["/stream/", "/play/", "/live/", "/movie/", "/series/", "/timeshift/", "/logos/"]

    static func carriesProviderBytes(route: String) -> Bool {
        routePrefixes.contains { route.hasPrefix($0) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let route = context.endpointPath, Self.carriesProviderBytes(route: route) else {
            return try await next(request, context)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Thrown errors are answered here, so they get the same fields (their text is redacted
            // further in, by RedactingErrorMiddleware).
            response = try error.response(from: request, context: context)
        }
        Self.makeInert(&response.headers, status: response.status.code)
        return response
    }

    /// Gives `fields` the rule's fields, in this order (the fast path writes the same): each
    /// `Content-Type` kept in place if it passes, else `application/octet-stream`; one added
    /// when there is none; then `Content-Disposition: attachment` if a type did not pass, then
    /// `X-Content-Type-Options` and `Content-Security-Policy`. Fields of those three names from
    /// elsewhere are dropped. A `204` or `304` (no body, so no type) gets only the last two.
    static func makeInert(_ fields: inout HTTPFields, status: Int) {
        fields[.contentDisposition] = nil
        fields[.xContentTypeOptions] = nil
        fields[.contentSecurityPolicy] = nil
        if hasBody(status: status) {
            var passes = true
            var hasType = false
            for index in fields.indices where fields[index].name == .contentType {
                hasType = true
                if !ProviderContentType.passes(fields[index].value) {
                    fields[index].value = ProviderContentType.fallback
                    passes = false
                }
            }
            if !hasType {
                fields.append(HTTPField(name: .contentType, value: ProviderContentType.fallback))
                passes = false
            }
            if !passes { fields.append(HTTPField(name: .contentDisposition, value: ProviderContentType.attachment)) }
        }
        fields.append(HTTPField(name: .xContentTypeOptions, value: ProviderContentType.noSniff))
        fields.append(HTTPField(name: .contentSecurityPolicy, value: ProviderContentType.sandboxPolicy))
    }

    /// Whether an answer with `status` has a body whose type matters.
    static func hasBody(status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    /// Whether `name` is one of the fields this rule sets (the fast path leaves an answer that
    /// already has one to the router).
    static func isSetHere(_ name: String) -> Bool {
        StreamFastPath.name(name, is: "content-disposition") || StreamFastPath.name(name, is: "x-content-type-options")
            || StreamFastPath.name(name, is: "content-security-policy")
    }
}
