import Foundation
import Testing

@testable import MediaCache

/// A new version's validators reach the index (its spans dropped) before its first byte; spans of
/// the old version synced in the meantime must not be recorded under them, or after kill -9 the
/// index would claim bytes the new data file does not hold.
@Suite struct CacheIndexOrderTests {
    @Test func spansOfAnOlderVersionAreNotSavedUnderANewOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "index-order-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let index = try CacheIndex(path: directory + "/index.sqlite")
        let old = ResourceMeta(length: 1000, etag: "\"v1\"")
        let new = ResourceMeta(length: 1000, etag: "\"v2\"")
        var spans = SpanSet()
        spans.insert(0..<500)

        try await index.replaceResource(key: "k", url: "http://o/x", finalURL: nil, meta: old, keepSpans: false)
        #expect(try index.saveSpans(key: "k", spans: spans, meta: old))
        #expect(try index.loadAll().first?.spans.count == 500)

        // The origin changed: the new validators replace the old and drop their spans…
        try await index.replaceResource(key: "k", url: "http://o/x", finalURL: nil, meta: new, keepSpans: false)
        // …and a sync of the old version that finishes now records nothing.
        spans.insert(500..<800)
        #expect(try !index.saveSpans(key: "k", spans: spans, meta: old))
        let stored = try #require(try index.loadAll().first)
        #expect(stored.meta == new)
        #expect(stored.spans.count == 0)
        // The new version's own spans are recorded.
        var fresh = SpanSet()
        fresh.insert(0..<100)
        #expect(try index.saveSpans(key: "k", spans: fresh, meta: new))
        #expect(try index.loadAll().first?.spans.count == 100)
        // A resource the index does not know (evicted meanwhile) gets no spans either.
        #expect(try !index.saveSpans(key: "gone", spans: fresh, meta: new))
    }
}
