import AsyncHTTPClient
import Fetching
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
    /// Where requests may go; checked at every hop, redirects included, on resolved addresses.
    var fetchGate: FetchGate = .open

    func send(
        url: URL, method: HTTPMethod = .GET, headers: [(String, String)], extraHeaders: [(String, String)] = []
    ) async throws -> UpstreamResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers + extraHeaders {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        if !request.headers.contains(name: "User-Agent") {
            request.headers.add(name: "User-Agent", value: "Tuner/0.1")
        }
        let fetched: FetchedResponse
        do {
            // Follows redirects by hand (the client is built with `.disallow`): each hop passes the
            // gate and credentials stay with the first origin.
            fetched = try await httpClient.execute(request, gate: fetchGate, timeout: headTimeout, logger: logger)
        } catch let error as FetchError {
            switch error.kind {
            case .refused: throw MediaCacheError.refusedByPolicy(error.description)
            case .badRedirect: throw MediaCacheError.refusedRedirect(error.description)
            }
        } catch {
            throw MediaCacheError.transport(error)
        }
        return UpstreamResponse(
            status: Int(fetched.response.status.code), headers: fetched.response.headers, body: fetched.response.body,
            finalURL: fetched.url)
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
