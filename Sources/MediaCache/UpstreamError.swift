import AsyncHTTPClient
import MediaFormats
import NIOCore
import NIOHTTP1

/// Why a request to the origin failed, and the HTTP status the proxy answers with.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    /// The status a proxy should reply with: the origin's own for HTTP errors, 502 when the origin
    /// could not be reached or misbehaved, 504 when it did not answer in time.
    public let status: Int
    public let description: String
    /// True for failures worth retrying (timeouts, resets, 408/429/5xx).
    public let isTransient: Bool
    /// The origin's headers, for passthrough of error responses.
    public let headers: HTTPHeaders
    /// The first bytes of the origin's error body, passed through to the client.
    public let body: ByteBuffer?

    init(status: Int, description: String, isTransient: Bool, headers: HTTPHeaders = [:], body: ByteBuffer? = nil) {
        self.status = status
        self.description = description
        self.isTransient = isTransient
        self.headers = headers
        self.body = body
    }

    static func originStatus(_ status: Int, headers: HTTPHeaders, body: ByteBuffer?) -> UpstreamError {
        UpstreamError(
            status: status, description: "origin answered \(status)",
            isTransient: status == 408 || status == 429 || status >= 500,
            headers: headers, body: body
        )
    }

    static func refusedRedirect(_ location: String) -> UpstreamError {
        UpstreamError(
            status: 502, description: "origin redirected to '\(location)', which is not an http(s) URL; refused",
            isTransient: false)
    }

    static func refusedByPolicy(_ policy: FetchPolicy, url: String) -> UpstreamError {
        UpstreamError(status: 403, description: policy.refusal(url), isTransient: false)
    }

    static let tooManyRedirects = UpstreamError(
        status: 502, description: "origin redirected more than 10 times", isTransient: false)

    static func badResponse(_ reason: String) -> UpstreamError {
        UpstreamError(status: 502, description: "origin sent a bad response: \(reason)", isTransient: true)
    }

    static let timeout = UpstreamError(status: 504, description: "origin did not answer in time", isTransient: true)

    /// Classifies a transport error from the HTTP client.
    static func transport(_ error: any Error) -> UpstreamError {
        if let error = error as? UpstreamError { return error }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout, .readTimeout, .deadlineExceeded, .writeTimeout:
                return .timeout
            default:
                break
            }
        }
        let text = String(describing: error)
        if text.contains("imeout") || text.contains("deadline") { return .timeout }
        return UpstreamError(status: 502, description: "origin unreachable: \(text)", isTransient: true)
    }
}
