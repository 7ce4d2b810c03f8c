import Hummingbird

/// Requires the access token on API requests when Tuner listens beyond loopback. Stream URLs are
/// signed and need no token, so players can open them as they are.
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/") else { return try await next(request, context) }
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        let supplied = bearer ?? request.uri.queryParameters["token"].map(String.init)
        guard let supplied, constantTimeEquals(supplied, token) else {
            throw HTTPError(.unauthorized, message: "this Tuner listens beyond localhost: send 'Authorization: Bearer <token>' (the token is in the data folder's 'token' file or TUNER_TOKEN)")
        }
        return try await next(request, context)
    }

    /// Compares without an early exit, so response times do not reveal how much of a guess matched.
    private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
