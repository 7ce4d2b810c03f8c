import Foundation
import Testing

@testable import MediaCache

@Suite struct CacheKeyRulesTests {
    @Test func ignoredParametersDoNotChangeTheKey() {
        let rules = CacheKeyRules(ignoredQueryParameters: ["token", "Expires"])
        let a = rules.key(for: URL(string: "http://Example.com/live/1.ts?token=abc&q=1&expires=5#x")!)
        let b = rules.key(for: URL(string: "http://example.com/live/1.ts?q=1&token=zzz")!)
        let c = rules.key(for: URL(string: "http://example.com/live/1.ts?q=2&token=abc")!)
        #expect(a == b)
        #expect(a != c)
        #expect(a.count == 64)
        #expect(rules.normalizedURL(URL(string: "HTTP://EXAMPLE.com/a?token=1")!) == "http://example.com/a")
    }

    @Test func withoutRulesEveryQueryCounts() {
        let rules = CacheKeyRules()
        #expect(
            rules.key(for: URL(string: "http://e.com/a?token=1")!)
                != rules.key(for: URL(string: "http://e.com/a?token=2")!))
    }
}
