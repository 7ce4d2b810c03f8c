import HTTPTypes
import Hummingbird

/// The router as controllers see it while routes are added: every route passes on to the router
/// and is written down (method and path), so a test can hold the routes the server has against
/// the endpoint table in both directions. Hummingbird keeps its route tree to itself.
final class RouteLedger<Context: RequestContext>: RouterMethods {
    /// One route: its method and path as registered, parameters as `{name}` (`/api/v1/transfers/{id}`).
    struct Route: Hashable, Sendable, CustomStringConvertible {
        var method: String
        var path: String
        var description: String { "\(method) \(path)" }
    }

    let router: Router<Context>
    private(set) var routes: [Route] = []

    init(router: Router<Context>) {
        self.router = router
    }

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        // Hummingbird prints a parameter as `{name}`, as the table writes it.
        routes.append(Route(method: method.rawValue, path: path.description))
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
