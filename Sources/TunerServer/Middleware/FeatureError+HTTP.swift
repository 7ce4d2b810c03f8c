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
        case .busy: .serviceUnavailable
        }
    }

    /// The error as HTTP; a busy one says when to try again.
    var httpError: HTTPError {
        guard kind != .busy else {
            return HTTPError(
                .serviceUnavailable, headers: [.retryAfter: String(FeatureError.busyRetrySeconds)],
                message: description)
        }
        return HTTPError(httpStatus, message: description)
    }
}
