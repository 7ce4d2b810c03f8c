import HTTPTypes
import Hummingbird
import TunerApp

/// The one mapping from a feature error's kind to an HTTP answer: every route's errors pass
/// through it (`RedactingErrorMiddleware` maps any feature error a handler lets through).
extension FeatureError {
    /// The status each kind answers with.
    var httpStatus: HTTPResponse.Status {
        switch kind {
        case .notFound: .notFound
        case .notPlayable, .conflict: .conflict
        case .invalid: .badRequest
        case .forbidden: .forbidden
        case .upstream: .badGateway
        case .failed: .internalServerError
        case .busy, .unavailable: .serviceUnavailable
        case .unauthenticated: .unauthorized
        case .tooManyRequests: .tooManyRequests
        case .tooLarge: .contentTooLarge
        }
    }

    /// The error as HTTP: when to try again (`Retry-After`) and what credentials to send
    /// (`WWW-Authenticate`) when the error says.
    var httpError: HTTPError {
        var headers = HTTPFields()
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return HTTPError(httpStatus, headers: headers, message: description)
    }
}
