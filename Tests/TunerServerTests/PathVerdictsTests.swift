import Foundation
import Streaming
import Testing
import TunerApp

@testable import TunerServer

/// The fast path's verdicts by request target stay bounded whatever a client asks for, and give
/// back exactly what was kept for a target.
@Suite struct PathVerdictsTests {
    @Test("verdicts are kept per target, and at most maximumCount of them")
    func verdictsAreKeptAndBounded() throws {
        let verdicts = PathVerdicts()
        let link = StreamLink(url: try #require(URL(string: "http://origin.example/a.ts")))
        #expect(verdicts.verdict(for: "/stream/a/b/c.ts") == nil)
        verdicts.remember(.init(link: link, segment: 7), for: "/stream/a/b/s7/c.ts")
        #expect(verdicts.verdict(for: "/stream/a/b/s7/c.ts")?.segment == 7)
        #expect(verdicts.verdict(for: "/stream/a/b/s7/c.ts")?.link == link)
        #expect(verdicts.verdict(for: "/stream/a/b/s7/c.tS") == nil)

        for index in 0..<(PathVerdicts.maximumCount * 2 + 10) {
            verdicts.remember(.init(link: link, segment: index), for: "/stream/x/y/s\(index)/z.ts")
        }
        #expect(verdicts.count <= PathVerdicts.maximumCount)
        let last = PathVerdicts.maximumCount * 2 + 9
        #expect(verdicts.verdict(for: "/stream/x/y/s\(last)/z.ts")?.segment == last)
    }
}
