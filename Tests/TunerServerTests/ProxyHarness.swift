import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TunerApp
import TunerServer
import TunerTesting

/// A test origin and a Tuner server in front of it, both on 127.0.0.1 random ports, with a
/// temporary data folder.
final class ProxyHarness: Sendable {
    let origin: TestOrigin
    let server: TunerServer
    let dataDirectory: String

    static func start(_ configure: (inout TunerConfiguration) -> Void = { _ in }) async throws -> ProxyHarness {
        let origin = try await TestOrigin.start()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-test-\(UUID().uuidString)").path
        var configuration = TunerConfiguration(port: 0, dataDirectory: data)
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let server = try await TunerServer.start(configuration: configuration, logger: logger)
        return ProxyHarness(origin: origin, server: server, dataDirectory: data)
    }

    private init(origin: TestOrigin, server: TunerServer, dataDirectory: String) {
        self.origin = origin
        self.server = server
        self.dataDirectory = dataDirectory
    }

    func stop(removeData: Bool = true) async throws {
        try await server.stop()
        try await origin.shutdown()
        if removeData { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }

    /// The proxy URL of an origin path like `/files/a.mp4?size=1000`.
    func proxyURL(_ originPath: String, headers: [String: String] = [:]) throws -> String {
        try server.proxyURL(for: URL(string: origin.baseURL + originPath)!, headers: headers).absoluteString
    }

    var api: String { server.baseURL + "/api/v1" }

    /// The cache's `bytes` from the stats API once `condition` holds, or after 5 s whatever they
    /// are (-1 when the answer has none). Eviction runs when the server's reader lets go of an
    /// entry, just after the client has the last byte, so it is polled, not timed.
    func cachedBytes(until condition: (Int) -> Bool) async throws -> Int {
        var cached = -1
        for attempt in 0..<200 {
            cached = try HTTP.json(try await HTTP.fetch(api + "/cache/stats"))["bytes"] as? Int ?? -1
            if condition(cached) || attempt == 199 { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        return cached
    }
}

/// What a client received: status, headers and the body bytes that arrived (all of them, or the
/// prefix before the connection failed, with the error).
struct Fetched: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var error: String?

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

enum HTTP {
    /// Patient: the whole suite starts at once on two cores, and an in-process server may take a
    /// minute to answer then. The limits catch a server that never answers, not a slow one.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(30), read: .seconds(300)))
        configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func fetch(_ url: String, method: String = "GET", headers: [String: String] = [:], json: String? = nil)
        async throws -> Fetched
    {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(300))
        var body: [UInt8] = []
        var failure: String?
        do {
            for try await chunk in response.body { body.append(contentsOf: chunk.readableBytesView) }
        } catch {
            failure = "\(error)"
        }
        return Fetched(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: body,
            error: failure)
    }

    static func json(_ fetched: Fetched) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(fetched.body)) as? [String: Any] ?? [:]
    }
}
