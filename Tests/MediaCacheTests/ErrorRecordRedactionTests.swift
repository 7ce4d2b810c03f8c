import Foundation
import Testing
import TunerTesting

@testable import MediaCache

/// The errors the cache keeps (shown by `/cache/stats` and `tuner cache stats`, stored in its
/// index) carry no provider credentials.
@Suite struct ErrorRecordRedactionTests {
    @Test func recordedErrorsAreRedactedInMemoryAndOnDisk() async throws {
        let origin = try await TestOrigin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try MediaCache(
            configuration: MediaCacheConfiguration(directory: directory, maxBytes: 1 << 20, minimumFreeDiskBytes: 0))
        let url = URL(string: "\(origin.baseURL)/live/alice/SECRETPW/1.ts?username=alice&password=SECRETPW&status=404")!
        let response = await cache.serve(MediaRequest(url: url))
        #expect(response.status == 502 || response.status == 404)
        _ = await response.collectBody(limit: 1 << 20)
        let errors = cache.statistics().lastErrors
        #expect(errors.count == 1)
        #expect(!errors.contains { $0.url.contains("SECRETPW") || $0.message.contains("SECRETPW") }, "\(errors)")
        try await cache.shutdown()
        try await origin.shutdown()
        // Nothing in the cache's files either (the index keeps the errors across restarts).
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory) {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            #expect(data.range(of: Data("SECRETPW".utf8)) == nil, "\(name)")
        }
    }
}
