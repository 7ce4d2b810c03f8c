import AsyncHTTPClient
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

/// An origin response whose body has not been read yet.
struct UpstreamResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: HTTPClientResponse.Body
    /// The URL that answered, after redirects (playlists resolve relative URIs against it).
    var finalURL: URL
}

/// Sends requests to origins with the caller's headers, following redirects itself so that it
/// can refuse any hop to a scheme other than http(s) and report the final URL.
struct UpstreamClient: Sendable {
    let httpClient: HTTPClient
    /// How long to wait for the response head.
    let headTimeout: TimeAmount
    let logger: Logger
    /// Where requests may go; checked at every hop, redirects included.
    var fetchPolicy: FetchPolicy = .any

    static let maxRedirects = 10

    func send(
        url: URL, method: HTTPMethod = .GET, headers: [(String, String)], extraHeaders: [(String, String)] = []
    ) async throws -> UpstreamResponse {
        var current = url
        for _ in 0...Self.maxRedirects {
            guard let scheme = current.scheme?.lowercased(), scheme == "http" || scheme == "https", current.host != nil
            else {
                throw MediaCacheError.refusedRedirect(current.absoluteString)
            }
            guard fetchPolicy.permits(current) else {
                throw MediaCacheError.refusedByPolicy(fetchPolicy, url: current.absoluteString)
            }
            var request = HTTPClientRequest(url: current.absoluteString)
            request.method = method
            // Credentials were given for the first origin; a redirect elsewhere must not receive them
            // (what curl and browsers do).
            let sameOrigin = CredentialHeaders.isSameOrigin(current, url)
            for (name, value) in headers where sameOrigin || !CredentialHeaders.isCredential(name) {
                request.headers.replaceOrAdd(name: name, value: value)
            }
            for (name, value) in extraHeaders where sameOrigin || !CredentialHeaders.isCredential(name) {
                request.headers.replaceOrAdd(name: name, value: value)
            }
            if !request.headers.contains(name: "User-Agent") {
                request.headers.add(name: "User-Agent", value: "Tuner/0.1")
            }
            let response: HTTPClientResponse
            do {
                response = try await httpClient.execute(request, timeout: headTimeout, logger: logger)
            } catch {
                throw MediaCacheError.transport(error)
            }
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location") {
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                    throw MediaCacheError.refusedRedirect(location)
                }
                logger.debug(
                    "upstream redirect",
                    metadata: [
                        "from": "\(SecretRedactor.redactURL(current.absoluteString))",
                        "to": "\(SecretRedactor.redactURL(next.absoluteString))",
                    ])
                // The body of a redirect is not needed; dropping it lets the client close or reuse the connection.
                _ = try? await response.body.collect(upTo: 64 * 1024)
                current = next
                continue
            }
            return UpstreamResponse(status: status, headers: response.headers, body: response.body, finalURL: current)
        }
        throw MediaCacheError.tooManyRedirects
    }

    /// Builds the error for a non-success response, keeping the start of its body for the client.
    static func errorResponse(_ response: UpstreamResponse) async -> MediaCacheError {
        var collected: ByteBuffer?
        do {
            var buffer = ByteBuffer()
            for try await chunk in response.body {
                var chunk = chunk
                let room = 16 * 1024 - buffer.readableBytes
                if room <= 0 { break }
                if let bytes = chunk.readSlice(length: min(room, chunk.readableBytes)) {
                    buffer.writeImmutableBuffer(bytes)
                }
            }
            collected = buffer
        } catch {
            collected = nil
        }
        return .originStatus(response.status, headers: response.headers, body: collected)
    }
}
