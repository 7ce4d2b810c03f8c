import Foundation
import HTTPTypes
import Hummingbird
import TunerAPI
import TunerApp

/// Sign-in and API keys over HTTP: `POST /api/v1/session` exchanges the access token or a key
/// for an HttpOnly, SameSite=Strict session cookie (the web app's sign-in page posts here);
/// `GET` says who is signed in, `DELETE` signs out. `GET`/`POST /api/v1/keys` and
/// `DELETE /api/v1/keys/{id}` manage keys (admin scope, checked by the request guard).
struct AccessController {
    let access: AccessControl
    /// Sign-ins count against their address like wrong tokens (429 with `Retry-After` past the limit).
    let throttle: CredentialThrottle

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.signIn) { [access, throttle] request, context in
            let body = try await request.decode(as: SignInRequest.self, context: context)
            let ticket: CredentialThrottle.Machine.Ticket
            switch throttle.admit(address: LiveController.address(of: context)) {
            case .refused(let wait):
                throw RequestGuardMiddleware.throttled(wait)
            case .admitted(let admitted):
                ticket = admitted
            }
            let cookie: String
            let principal: AccessPrincipal
            do {
                (cookie, principal) = try await access.signIn(secret: body.key)
            } catch {
                _ = throttle.failed(ticket)
                throw error
            }
            throttle.succeeded(ticket)
            var response = try SessionAnswer(principal)
                .response(from: request, context: context)
            response.headers[.setCookie] = Self.cookie(value: cookie, maxAge: Int(AccessControl.sessionLifetime))
            return response
        }
        router.add(.session) { _, context in
            guard let principal = context.principal else {
                throw FeatureError(.unauthenticated, "nobody is signed in: sign in at /login")
            }
            return SessionAnswer(principal)
        }
        router.add(.signOut) { [access] request, _ in
            if let cookie = request.cookies[AccessControl.sessionCookie]?.value {
                await access.signOut(session: cookie)
            }
            var response = Response(status: .noContent)
            response.headers[.setCookie] = Self.cookie(value: "", maxAge: 0)
            return response
        }
        router.add(.keys) { [access] _, _ in
            APIKeyList(keys: try await access.keys().map(APIKeyAnswer.init))
        }
        router.add(.addKey) { [access] request, context in
            let body = try await request.decode(as: AddKeyRequest.self, context: context)
            guard let scope = AccessScope(rawValue: body.scope.lowercased()) else {
                throw FeatureError(.invalid, "scope must be read, play, manage or admin")
            }
            let made = try await access.addKey(name: body.name, scope: scope)
            let answer = NewAPIKeyAnswer(key: APIKeyAnswer(made.key), secret: made.secret)
            var response = try EditedResponse(status: .created, response: answer)
                .response(from: request, context: context)
            // The idempotency journal keeps this answer without the secret (a resend says it was shown once).
            response.headers[IdempotencyMiddleware.shownOnceHeader] = "secret"
            return response
        }
        router.add(.removeKey) { [access] _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            try await access.removeKey(id: id)
            return Response(status: .noContent)
        }
    }

    /// The session cookie: never readable by scripts, never sent by another site's request.
    static func cookie(value: String, maxAge: Int) -> String {
        "\(AccessControl.sessionCookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }
}
