import Foundation
import MediaFormats
import Testing

/// The `Date` header's formatter (the stream fast path, the test origin): RFC 9110's own example,
/// and a round trip through the parser across leap days, centuries and before 1970.
@Suite struct HTTPDateTests {
    @Test func formatsTheRFCExample() {
        #expect(HTTPDate.string(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(arguments: [0, 951_782_400, 4_107_542_399, -86_401, 1_796_083_200, 1_000_000_000])
    func readsBackThroughTheParser(_ seconds: Int) {
        let text = HTTPDate.string(secondsSince1970: seconds)
        #expect(HTTPDateParser.parse(text).map { Int($0.timeIntervalSince1970) } == seconds, "\(text)")
    }
}
