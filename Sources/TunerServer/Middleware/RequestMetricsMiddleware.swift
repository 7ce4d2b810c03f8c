import Dispatch
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization
import TunerApp

/// Requests by route, method and status, their durations and the requests in progress, into
/// swift-metrics, under the names Hummingbird's `MetricsMiddleware` uses (`/metrics` renames them).
///
/// Unlike that middleware it leaves a small answer's body as it is: wrapping a body to learn when
/// it was written turns a single buffer into a closure, and then Hummingbird writes head, body
/// and end separately (three flushes, three system calls) instead of in one. An answer whose
/// length is known and below ``inlineLimit`` is counted when it is ready, which for so few bytes
/// is within microseconds of its last byte leaving; longer or streamed ones when written.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    /// Bodies shorter than this are timed to the response being ready, not to the write's end.
    static let inlineLimit = 256 << 10

    let store = Store()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = store.active(request.method)
        active.increment()
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // A feature error is answered (outside this middleware) with the status its kind names.
            let status =
                (error as? any HTTPResponseError)?.status ?? FeatureError(answering: error)?.httpStatus
                ?? .internalServerError
            let metrics = store.endpoint(
                Key(route: context.endpointPath ?? "NotFound", method: request.method, status: status))
            metrics.requests.increment()
            metrics.errors.increment()
            active.decrement()
            throw error
        }
        let key = Key(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status)
        let record: @Sendable () -> Void = { [store] in
            store.recordAnswer(key, startedAt: start)
            active.decrement()
        }
        if let length = response.body.contentLength, length < Self.inlineLimit {
            record()
            return response
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await body.write(writer)
            } catch {
                record()
                throw error
            }
            record()
        }
        return response
    }

    struct Key: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: HTTPResponse.Status
    }

    /// One route's metrics objects.
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter

        init(_ key: Key) {
            let route = ("http.route", key.route)
            let method = ("http.request.method", key.method.rawValue)
            let status = key.status.code.description
            requests = Counter(
                label: "hb.requests", dimensions: [route, method, ("http.response.status_code", status)])
            duration = Timer(
                label: "http.server.request.duration",
                dimensions: [route, method, ("http.response.status_code", status)], preferredDisplayUnit: .seconds)
            errors = Counter(label: "hb.request.errors", dimensions: [route, method, ("error.type", status)])
        }
    }

    /// The metrics objects made so far: the factory's own lookup by label and dimensions costs
    /// more than a dictionary read.
    final class Store: Sendable {
        private let endpoints = Mutex<[Key: Endpoint]>([:])
        private let methods = Mutex<[HTTPRequest.Method: Meter]>([:])

        func endpoint(_ key: Key) -> Endpoint {
            endpoints.withLock { endpoints in
                if let known = endpoints[key] { return known }
                let made = Endpoint(key)
                endpoints[key] = made
                return made
            }
        }

        /// Counts one answer of `key` and its duration since `start` (`DispatchTime` nanoseconds).
        func recordAnswer(_ key: Key, startedAt start: UInt64) {
            let metrics = endpoint(key)
            metrics.requests.increment()
            metrics.duration.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- start))
        }

        func active(_ method: HTTPRequest.Method) -> Meter {
            methods.withLock { methods in
                if let known = methods[method] { return known }
                let made = Meter(
                    label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
                methods[method] = made
                return made
            }
        }
    }
}
