import AsyncHTTPClient
import Foundation
import MediaFormats
import NIOCore
import NIOFoundationCompat
import TunerAPI

/// A client of a running Tuner server's JSON API, built on the endpoints and bodies of
/// `TunerAPI`: the CLI's way to the server, and an app's.
///
/// It sends the access token when it has one, and JSON bodies with their content type (the
/// server refuses a body of any other type). Answers come back as ``ServerAnswer``: the status
/// and the bytes, decoded on demand into the shared types.
///
/// A command (any endpoint that is not `GET`) carries an `Idempotency-Key` the link makes, is
/// kept in the ``outbox`` until an answer arrives, and is resent with the same key when the
/// server cannot be reached or is still running it (``commandRetry``): the server applies each
/// key once, so a resend never acts twice. What is still in the outbox when the retries run out
/// goes out again with ``deliverOutbox()``.
public struct ServerLink: Sendable {
    /// The server, like `http://127.0.0.1:8080` (no trailing slash).
    public let baseURL: String
    /// The access token (`Authorization: Bearer …`), needed when the server listens beyond loopback.
    public let token: String?
    let httpClient: HTTPClient
    /// How long one request may take.
    public var timeout: TimeAmount = .seconds(30)
    /// The largest answer read.
    public var maxAnswerBytes = 16 << 20
    /// Where commands wait for their answer; nil keeps them only for the retries of one call.
    public var outbox: CommandOutbox?
    /// How a command is resent: after a failed connection, and while the server says it is still
    /// running it (409 with `Retry-After`). About 6 s in all by default.
    public var commandRetry = RetryPolicy(baseDelay: 0.2, maximumDelay: 2, maximumAttempts: 6)

    public init(baseURL: String, token: String?, httpClient: HTTPClient, outbox: CommandOutbox? = nil) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.httpClient = httpClient
        self.outbox = outbox
    }

    /// Calls `endpoint` with no body, and `query` appended (already encoded, without `?`).
    public func send(_ endpoint: APIEndpoint, query: String? = nil) async throws -> ServerAnswer {
        try await perform(endpoint, query: query, body: nil)
    }

    /// Calls `endpoint` with `body` as JSON.
    public func send(_ endpoint: APIEndpoint, body: some Encodable) async throws -> ServerAnswer {
        try await perform(endpoint, query: nil, body: try JSONEncoder().encode(body))
    }

    private func perform(_ endpoint: APIEndpoint, query: String?, body: Data?) async throws -> ServerAnswer {
        let target = endpoint.path + (query.map { "?" + $0 } ?? "")
        guard endpoint.method != "GET" else {
            return try await execute(method: endpoint.method, target: target, body: body, key: nil)
        }
        let entry = CommandOutbox.Entry(
            key: Self.makeKey(), server: baseURL, method: endpoint.method, target: target, body: body,
            createdAt: Date())
        try outbox?.keep(entry)
        return try await deliver(entry)
    }

    /// Sends the outbox's commands for this server again, oldest first, each with its own key,
    /// and says what became of each: answered (and removed), or still undelivered (kept).
    public func deliverOutbox() async -> [(entry: CommandOutbox.Entry, result: Result<ServerAnswer, any Error>)] {
        guard let outbox else { return [] }
        var results: [(entry: CommandOutbox.Entry, result: Result<ServerAnswer, any Error>)] = []
        for entry in outbox.entries() where entry.server == baseURL {
            do {
                results.append((entry, .success(try await deliver(entry))))
            } catch {
                results.append((entry, .failure(error)))
            }
        }
        return results
    }

    /// Sends `entry` until the server answers it (then it leaves the outbox) or the retries run out.
    func deliver(_ entry: CommandOutbox.Entry) async throws -> ServerAnswer {
        var failures = 0
        var random = SystemRandomNumberGenerator()
        while true {
            let retryAfter: TimeInterval?
            do {
                let answer = try await execute(
                    method: entry.method, target: entry.target, body: entry.body, key: entry.key)
                // 409 with Retry-After: the first attempt is still running on the server.
                guard answer.status == 409, let seconds = answer.retryAfter else {
                    outbox?.remove(key: entry.key)
                    return answer
                }
                retryAfter = seconds
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                retryAfter = nil
                failures += 1
                guard
                    case .retry(let seconds) = commandRetry.decision(
                        transient: true, failures: failures, random: &random)
                else {
                    throw ServerLinkError.undelivered(
                        method: entry.method, target: entry.target, kept: outbox != nil, reason: "\(error)")
                }
                try await Task.sleep(for: .seconds(seconds))
                continue
            }
            failures += 1
            guard
                case .retry(let seconds) = commandRetry.decision(
                    transient: true, retryAfter: retryAfter, failures: failures, random: &random)
            else {
                throw ServerLinkError.undelivered(
                    method: entry.method, target: entry.target, kept: outbox != nil,
                    reason: "the server is still running it")
            }
            try await Task.sleep(for: .seconds(seconds))
        }
    }

    private func execute(method: String, target: String, body: Data?, key: String?) async throws -> ServerAnswer {
        var request = HTTPClientRequest(url: baseURL + target)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let key { request.headers.add(name: "Idempotency-Key", value: key) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await httpClient.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: maxAnswerBytes)
        return ServerAnswer(
            status: Int(response.status.code), body: Data(buffer: bytes),
            isReplay: response.headers.first(name: "Idempotent-Replayed") == "true",
            retryAfter: response.headers.first(name: "Retry-After").flatMap { RetryPolicy.parseRetryAfter($0) })
    }

    /// A new idempotency key: 128 random bits in hex.
    static func makeKey() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(random.next(), radix: 16).leftPadded(to: 16) }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// A server's answer: status and body.
public struct ServerAnswer: Sendable {
    public let status: Int
    public let body: Data
    /// The server had applied this command before and answered as it did then.
    public let isReplay: Bool
    /// The `Retry-After` the server sent, in seconds.
    public let retryAfter: TimeInterval?

    public init(status: Int, body: Data, isReplay: Bool = false, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.body = body
        self.isReplay = isReplay
        self.retryAfter = retryAfter
    }

    /// The body as `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: body)
    }

    /// The error message the server gave, or the body as text.
    public var message: String {
        if let answer = try? JSONDecoder().decode(ErrorAnswer.self, from: body), let message = answer.error.message {
            return message
        }
        if let answer = try? JSONDecoder().decode(MessageAnswer.self, from: body) { return answer.message }
        return String(decoding: body.prefix(2000), as: UTF8.self)
    }
}
