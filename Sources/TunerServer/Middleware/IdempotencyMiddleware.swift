import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import TunerApp

/// Applies a state-changing request that carries an `Idempotency-Key` header once: the first
/// answer is kept in the ``CommandJournal`` (SQLite) and a resend with the same key gets it back,
/// with `Idempotent-Replayed: true`, without acting again. So a page or the CLI can resend a
/// command after a timeout, a dropped connection or a server restart without doing it twice.
///
/// After the request guard (a key never lets a refused request through) and outside the error
/// middleware, so an error answer is kept like any other. Server errors (5xx) are not kept: the
/// command failed without effect and a resend may try again. What a key may not do, in the
/// words of the IETF draft "The Idempotency-Key HTTP Header Field": be reused for another request
/// (422), be resent while the first is running (409, `Retry-After: 1`). A key whose server stopped
/// mid-request answers 409 for good: it may or may not have acted.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    static let keyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    /// Set by a route whose answer shows a secret once (a new API key's): names the JSON field.
    /// Its receipt keeps the answer without that field and with `"secretShownOnce": true`, so
    /// neither the SQLite file nor a resend holds the secret; a lost answer means a new key.
    static let shownOnceHeader = HTTPField.Name("Tuner-Shown-Once")!
    /// A command's body is small JSON; a longer one with a key is refused rather than hashed.
    static let maxBodySize = 1 << 20

    let journal: CommandJournal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let header = request.headers[Self.keyHeader], Self.isCommand(request) else {
            return try await next(request, context)
        }
        let key: String
        do {
            key = try CommandJournal.key(fromHeader: header)
        } catch let error as FeatureError {
            throw HTTPError(.badRequest, message: error.description)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBodySize)
        } catch is NIOTooManyBytesError {
            throw HTTPError(
                .contentTooLarge,
                message: """
                    a request with an Idempotency-Key may have at most \(Self.maxBodySize) bytes of body: \
                    send uploads through tus (/api/v1/uploads) without the key
                    """)
        }
        let fingerprint = CommandJournal.fingerprint(
            method: request.method.rawValue, target: request.uri.description, body: body.readableBytesView)
        let claim = try await Self.answering {
            try await journal.claim(key: key, fingerprint: fingerprint, caller: context.principal?.caller ?? "owner")
        }
        switch claim {
        case .replay(let receipt):
            return Self.response(replaying: receipt)
        case .mismatch:
            throw HTTPError(
                .unprocessableContent,
                message: """
                    this Idempotency-Key was used for another request (method, path or body differ): \
                    make a new key for each new command
                    """)
        case .inProgress:
            throw HTTPError(
                .conflict, headers: [.retryAfter: "1"],
                message: "a request with this Idempotency-Key is running: wait for its answer, or resend in a second")
        case .interrupted:
            throw HTTPError(
                .conflict,
                message: """
                    the server stopped while a request with this Idempotency-Key ran, so it may or may not \
                    have taken effect: reload the state, and send the command again with a new key if it is \
                    still needed
                    """)
        case .run(let ticket):
            return try await run(request, context: context, next: next, ticket: ticket)
        }
    }

    private func run(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response,
        ticket: CommandTicket
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            response = try error.response(from: request, context: context)
        } catch {
            await journal.abandon(ticket)
            throw error
        }
        guard response.status.code < 500 else {
            await journal.abandon(ticket)
            return response
        }
        let collector = BodyCollector()
        try await response.body.write(collector)
        let bytes = collector.buffer
        var kept = Array(bytes.readableBytesView)
        if let field = response.headers[Self.shownOnceHeader] {
            kept = Self.withoutSecret(kept, field: field)
        }
        try await Self.answering { [kept] in
            try await journal.finish(
                ticket,
                with: CommandReceipt(
                    status: response.status.code, contentType: response.headers[.contentType], body: kept))
        }
        response.body = ResponseBody(byteBuffer: bytes)
        return response
    }

    /// Runs `body`, its feature error as HTTP: this middleware sits outside the error middleware,
    /// so nothing after it would map the journal's errors.
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as FeatureError {
            throw error.httpError
        }
    }

    /// A JSON object's bytes without `field`, marked `"secretShownOnce": true`; an answer that
    /// is not such an object is kept as `{"secretShownOnce": true}` alone, never as it was.
    static func withoutSecret(_ body: [UInt8], field: String) -> [UInt8] {
        var object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        object[field] = nil
        object["secretShownOnce"] = true
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data)
    }

    /// State-changing methods, except tus (it resumes by offset, and its bodies are large).
    private static func isCommand(_ request: Request) -> Bool {
        switch request.method {
        case .post, .put, .patch, .delete:
            return request.headers[HTTPField.Name("Tus-Resumable")!] == nil
        default:
            return false
        }
    }

    private static func response(replaying receipt: CommandReceipt) -> Response {
        var headers: HTTPFields = [replayedHeader: "true"]
        if let type = receipt.contentType { headers[.contentType] = type }
        headers[.contentLength] = String(receipt.body.count)
        return Response(
            status: HTTPResponse.Status(code: receipt.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: receipt.body)))
    }
}

/// Keeps what a response body writes, so the answer can be stored and then sent.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
