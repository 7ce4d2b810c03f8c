import Hummingbird
import Logging
import MediaFormats
import TunerApp

/// Keeps provider secrets out of error answers: an error's message often quotes the URL that
/// failed, and that URL may carry a password. Sits closest to the routes, so every error a
/// handler throws passes here before anything answers or logs it.
struct RedactingErrorMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch var error as HTTPError {
            error.body = error.body.map(SecretRedactor.redact)
            throw error
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            // Whatever route let it through, a feature error (or a service's error, through the
            // feature error it maps to) answers as its kind says.
            if let feature = FeatureError(answering: error) {
                // The answer names no database; the owner's log does (without its password).
                if feature.kind == .unavailable {
                    context.logger.warning("The state database cannot be reached", metadata: ["error": "\(error)"])
                }
                var answer = feature.httpError
                answer.body = answer.body.map(SecretRedactor.redact)
                throw answer
            }
            // An error no handler turned into an answer: say what failed, without secrets,
            // instead of a bare 500 (and instead of the framework logging it as it is).
            throw HTTPError(.internalServerError, message: SecretRedactor.redact("\(error)"))
        }
    }
}
