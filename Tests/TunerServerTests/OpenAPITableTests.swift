import Foundation
import Testing
import TunerAPI

@testable import TunerServer

/// `openapi.json` (hand-kept, served at `/api/v1/openapi.json`) and the endpoint table describe
/// the same API: every JSON entry is an operation with its method and path, and every operation
/// under `/api/v1` is an entry.
@Suite struct OpenAPITableTests {
    /// The document as the server serves it.
    static func document() throws -> [String: Any] {
        let data = Data(PackageResources.openapi_json)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `GET /api/v1/health`-style lines for every operation of the document.
    static func documentedOperations() throws -> Set<String> {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "head", "post", "put", "patch", "delete", "options"]
        return Set(
            paths.flatMap { path, operations in
                operations.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
    }

    @Test func everyJSONEntryIsDocumentedAndEveryDocumentedAPIOperationIsAnEntry() throws {
        let documented = try Self.documentedOperations()
        let entries = Set(APIOperation.all.filter { $0.style == .json }.map(\.description))
        #expect(entries.subtracting(documented).sorted() == [], "entries missing from openapi.json")
        let api = documented.filter { $0.split(separator: " ")[1].hasPrefix(APIEndpoint.prefix + "/") }
        #expect(api.subtracting(entries).sorted() == [], "operations of openapi.json with no JSON entry in the table")
        // The stream proxy's paths are documented too, outside the table (they are not /api/v1).
        #expect(documented.subtracting(api).allSatisfy { $0.hasPrefix("GET /stream/") })
        // The WebSocket and tus entries are described by their protocols, not by OpenAPI.
        let others = APIOperation.all.filter { $0.style != .json }.map(\.description)
        #expect(others.filter(documented.contains) == [])
    }
}
