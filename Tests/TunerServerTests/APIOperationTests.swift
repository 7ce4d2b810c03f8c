import Foundation
import Testing
import TunerAPI
import TunerApp

@testable import TunerServer

/// The endpoint table (`TunerAPI.APIOperation.all`) is the API: the server routes exactly its
/// entries, the access rule asks each for the table's scope, and clients' endpoints are entries.
@Suite struct APIOperationTests {
    @Test func theTableNamesEachOperationOnce() {
        let all = APIOperation.all
        #expect(Set(all.map(\.name)).count == all.count, "no two entries share a name")
        #expect(Set(all.map(\.description)).count == all.count, "no two entries share a method and path")
        for operation in all {
            #expect(operation.path.hasPrefix(APIEndpoint.prefix + "/"), "\(operation)")
            #expect(
                ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].contains(operation.method), "\(operation)")
            #expect(!operation.summary.isEmpty, "\(operation) says what it does")
        }
    }

    @Test func everyClientEndpointIsAnEntry() {
        for endpoint in APIEndpoint.allCases {
            #expect(APIOperation.all.contains(endpoint.operation), "\(endpoint) has no entry")
            let ids = endpoint.operation.parameters.map { _ in "0" }
            #expect(endpoint.path == endpoint.operation.path(ids), "\(endpoint) prints its entry's path")
        }
    }

    @Test func theServerRoutesEveryEntryAndNothingElseUnderTheAPI() async throws {
        let harness = try await ProxyHarness.start()
        let routed = Set(
            harness.server.routes.filter { $0.path.hasPrefix(APIEndpoint.prefix + "/") }.map(\.description))
        try await harness.stop()
        let entries = Set(APIOperation.all.map(\.description))
        #expect(routed.subtracting(entries).sorted() == [], "routes without an entry in APIOperation.all")
        #expect(entries.subtracting(routed).sorted() == [], "entries the server does not route")
        // The ledger sees the routes at all (the check above could otherwise pass on nothing).
        #expect(harness.server.routes.contains { $0.path.hasPrefix("/stream/") })
    }

    @Test(arguments: APIOperation.all)
    func theAccessRuleAsksForTheTablesScope(operation: APIOperation) throws {
        let path = operation.path(operation.parameters.map { _ in "7" })
        let decided = AccessRule.scope(for: .init(operation.method)!, path: try RequestPath(normalising: path))
        #expect(decided.rawValue == operation.scope.rawValue, "\(operation): the access rule says \(decided)")
    }

    @Test func theTableScopesAreTheAccessScopes() {
        #expect(APIScope.allCases.map(\.rawValue) == AccessScope.allCases.map(\.rawValue))
    }
}
