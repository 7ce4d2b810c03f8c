import AsyncHTTPClient
import Foundation
import ServerLink
import Testing
import TunerAPI

/// The endpoints clients name (`TunerAPI.APIEndpoint`) are the ones the server routes.
@Suite struct APIEndpointTests {
    /// An empty body: the answer of a request no route matched. Every handler says why it refuses.
    static func isUnrouted(_ answer: ServerAnswer) -> Bool {
        (answer.status == 404 || answer.status == 405) && answer.body.isEmpty
    }

    @Test func everyEndpointIsRoutedByTheServer() async throws {
        let harness = try await ProxyHarness.start()
        let link = ServerLink(baseURL: harness.server.baseURL, token: nil, httpClient: HTTPClient.shared)
        // Bodies the handlers can decode, so that the answer comes from the handler.
        for endpoint in APIEndpoint.allCases {
            let answer: ServerAnswer =
                switch endpoint {
                case .changeTransfer: try await link.send(endpoint, body: ChangeTransferRequest(action: "pause"))
                case .cacheTrim: try await link.send(endpoint, body: TrimRequest(bytes: 1 << 40))
                case .cachePin, .cacheExport:
                    try await link.send(endpoint, body: CacheResourceRequest(url: "http://127.0.0.1:9/x", pinned: true))
                case .addTransfers: try await link.send(endpoint, body: AddTransfersRequest(transfers: []))
                case .startPreload: try await link.send(endpoint, body: PreloadRequest(url: "not a url"))
                case _ where endpoint.method == "POST" || endpoint.method == "PATCH":
                    try await link.send(endpoint, body: [String: String]())
                default: try await link.send(endpoint)
                }
            #expect(!Self.isUnrouted(answer), "\(endpoint.method) \(endpoint.path) is not routed: \(answer.status)")
            #expect(answer.status < 500, "\(endpoint.method) \(endpoint.path): \(answer.status) \(answer.message)")
        }
        // And the check can fail: a path nobody routes is seen as such.
        var request = HTTPClientRequest(url: harness.server.baseURL + "/api/v1/no-such-endpoint")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        #expect(Self.isUnrouted(ServerAnswer(status: Int(response.status.code), body: Data(buffer: body))))
        try await harness.stop()
    }

    @Test func pathsArePrintedFromTheEndpoint() {
        #expect(APIEndpoint.transfer(id: 7).path == "/api/v1/transfers/7")
        #expect(APIEndpoint.changeTransfer(id: 7).method == "PATCH")
        #expect(
            APIEndpoint.preload(id: "a/../b c").path == "/api/v1/cache/preloads/a%2F..%2Fb%20c",
            "an id is one escaped segment")
        #expect(APIEndpoint.catchup(channel: 3).path == "/api/v1/channels/3/catchup")
        #expect(
            Set(APIEndpoint.allCases.map { "\($0.method) \($0.path)" }).count == APIEndpoint.allCases.count,
            "no two endpoints alike")
    }
}

/// The served OpenAPI document describes every endpoint clients name.
@Suite struct OpenAPIDocumentTests {
    @Test func theDocumentIsServedAndListsEveryEndpoint() async throws {
        let harness = try await ProxyHarness.start()
        let link = ServerLink(baseURL: harness.server.baseURL, token: nil, httpClient: HTTPClient.shared)
        let answer = try await link.send(.openAPI)
        #expect(answer.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for endpoint in APIEndpoint.allCases {
            let documented = paths.contains { template, operations in
                guard operations[endpoint.method.lowercased()] != nil else { return false }
                let pattern =
                    "^"
                    + NSRegularExpression.escapedPattern(for: template)
                    .replacingOccurrences(of: "\\{", with: "{").replacingOccurrences(of: "\\}", with: "}")
                    .replacingOccurrences(of: #"\{[a-zA-Z]+\}"#, with: "[^/]+", options: .regularExpression) + "$"
                return endpoint.path.range(of: pattern, options: .regularExpression) != nil
            }
            #expect(documented, "\(endpoint.method) \(endpoint.path) is missing from openapi.json")
        }
        try await harness.stop()
    }
}
