import AsyncHTTPClient
import MediaFormats
import NIOCore
import NIOHTTP1

/// The origin's failures: `MediaCacheError`s of kind `.upstream`.
extension MediaCacheError {
    static func upstream(
        status: Int, description: String, isTransient: Bool, headers: HTTPHeaders = [:], body: ByteBuffer? = nil
    ) -> MediaCacheError {
        MediaCacheError(
            kind: .upstream, description: description, status: status, isTransient: isTransient, headers: headers,
            body: body)
    }

    static func originStatus(_ status: Int, headers: HTTPHeaders, body: ByteBuffer?) -> MediaCacheError {
        .upstream(
            status: status, description: "origin answered \(status)",
            isTransient: status == 408 || status == 429 || status >= 500,
            headers: headers, body: body
        )
    }

    /// A redirect that cannot be followed (not http(s), or more than ten); `reason` is redacted.
    static func refusedRedirect(_ reason: String) -> MediaCacheError {
        .upstream(status: 502, description: reason, isTransient: false)
    }

    /// A hop the fetch policy refuses; `reason` (from `FetchError`) names the redacted URL.
    static func refusedByPolicy(_ reason: String) -> MediaCacheError {
        .upstream(status: 403, description: reason, isTransient: false)
    }

    static func badResponse(_ reason: String) -> MediaCacheError {
        .upstream(status: 502, description: "origin sent a bad response: \(reason)", isTransient: true)
    }

    static let timeout = MediaCacheError.upstream(
        status: 504, description: "origin did not answer in time", isTransient: true)

    /// Classifies a transport error from the HTTP client.
    static func transport(_ error: any Error) -> MediaCacheError {
        if let error = error as? MediaCacheError, error.kind == .upstream { return error }
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
        return .upstream(status: 502, description: "origin unreachable: \(text)", isTransient: true)
    }
}
