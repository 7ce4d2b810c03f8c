import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import TunerAPI

/// A client of a running Tuner server's JSON API, built on the endpoints and bodies of
/// `TunerAPI`: the CLI's way to the server, and an app's.
///
/// It sends the access token when it has one, and JSON bodies with their content type (the
/// server refuses a body of any other type). Answers come back as ``ServerAnswer``: the status
/// and the bytes, decoded on demand into the shared types.
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

    public init(baseURL: String, token: String?, httpClient: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.httpClient = httpClient
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
        var request = HTTPClientRequest(url: baseURL + endpoint.path + (query.map { "?" + $0 } ?? ""))
        request.method = .init(rawValue: endpoint.method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await httpClient.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: maxAnswerBytes)
        return ServerAnswer(status: Int(response.status.code), body: Data(buffer: bytes))
    }
}

/// A server's answer: status and body.
public struct ServerAnswer: Sendable {
    public let status: Int
    public let body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
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
