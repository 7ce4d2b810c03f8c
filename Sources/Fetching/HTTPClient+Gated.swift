import AsyncHTTPClient
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

/// The answer of a gated fetch: the last hop's response and the URL that gave it (playlists
/// resolve relative URIs against it).
public struct FetchedResponse: Sendable {
    public var response: HTTPClientResponse
    public var url: URL
}

extension HTTPClient {
    /// Redirects followed at most, as browsers and curl do.
    public static let maxGatedRedirects = 10

    /// Executes `request` with every hop checked by `gate`, following redirects by hand (at most
    /// ten, http(s) only). The client must be built with `redirectConfiguration: .disallow`, or
    /// it would follow them unchecked. Authorization, Cookie and Proxy-Authorization go only to
    /// the first origin. A request other than GET or HEAD is not redirected (its body may be a
    /// stream that cannot be sent twice): its 3xx answer is returned as it came.
    ///
    /// Throws ``FetchError`` for a refused hop or a bad redirect, and the client's own errors.
    public func execute(
        _ request: HTTPClientRequest, gate: FetchGate, deadline: NIODeadline, logger: Logger? = nil
    ) async throws -> FetchedResponse {
        guard let first = URL(string: request.url) else {
            throw FetchError(.refused, description: "'\(SecretRedactor.redactURL(request.url))' is not a URL")
        }
        var current = first
        var hop = request
        for _ in 0...Self.maxGatedRedirects {
            try await gate.check(current)
            hop.url = current.absoluteString
            if !CredentialHeaders.isSameOrigin(current, first) {
                // Credentials were given for the first origin (what curl and browsers do).
                for name in Set(hop.headers.map(\.name)) where CredentialHeaders.isCredential(name) {
                    hop.headers.remove(name: name)
                }
            }
            let response = try await execute(hop, deadline: deadline, logger: logger)
            guard [301, 302, 303, 307, 308].contains(response.status.code),
                let location = response.headers.first(name: "Location"),
                hop.method == .GET || hop.method == .HEAD
            else {
                return FetchedResponse(response: response, url: current)
            }
            guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
                let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                throw FetchError(
                    .badRedirect,
                    description: """
                        '\(SecretRedactor.redactURL(current.absoluteString))' redirected to \
                        '\(SecretRedactor.redactURL(location))', which is not an http(s) URL; refused
                        """)
            }
            logger?.debug(
                "redirect",
                metadata: [
                    "from": "\(SecretRedactor.redactURL(current.absoluteString))",
                    "to": "\(SecretRedactor.redactURL(next.absoluteString))",
                ])
            // The body of a redirect is not needed; reading it lets the connection be reused.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            current = next
        }
        throw FetchError(
            .badRedirect,
            description: """
                '\(SecretRedactor.redactURL(first.absoluteString))' redirected more than \
                \(Self.maxGatedRedirects) times
                """)
    }

    /// ``execute(_:gate:deadline:logger:)`` with a deadline `timeout` from now.
    public func execute(
        _ request: HTTPClientRequest, gate: FetchGate, timeout: TimeAmount, logger: Logger? = nil
    ) async throws -> FetchedResponse {
        try await execute(request, gate: gate, deadline: .now() + timeout, logger: logger)
    }
}
