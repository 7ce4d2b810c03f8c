import HTTPTypes
import Hummingbird
import TunerAPI

extension RouterMethods {
    /// Routes `operation` (its method and path from the endpoint table) to `handler`, so no
    /// `/api/v1` path is written by hand in a controller.
    @discardableResult func add(
        _ operation: APIOperation,
        use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
        on(operation.routerPath, method: operation.httpMethod, use: handler)
    }
}

extension APIOperation {
    /// The path as Hummingbird routes it: `{id}` becomes `:id`.
    var routerPath: RouterPath {
        let segments = segments.map { segment in Self.parameterName(segment).map { ":" + $0 } ?? segment }
        return RouterPath("/" + segments.joined(separator: "/"))
    }

    /// The method as HTTP types spell it (every entry's is a valid token: `APIOperationTests` says so).
    var httpMethod: HTTPRequest.Method {
        HTTPRequest.Method(method) ?? .get
    }
}
