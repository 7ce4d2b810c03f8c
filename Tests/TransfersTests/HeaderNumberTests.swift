import MediaFormats
import Testing

@testable import Transfers

/// Numbers in servers' answers: signs, junk and values past Int64 are refused, not trusted.
@Suite struct HeaderNumberTests {
    @Test func onlyPlainDigitsAreByteCounts() {
        #expect(HeaderNumber.nonNegative("0") == 0)
        #expect(HeaderNumber.nonNegative(" 42 ") == 42)
        #expect(HeaderNumber.nonNegative("9223372036854775807") == Int64.max)
        for text in ["", "-5", "+5", "5 5", "0x10", "1e3", "9223372036854775808", "99999999999999999999", "٣"] {
            #expect(HeaderNumber.nonNegative(text) == nil, "\(text)")
        }
    }

    @Test func contentRangeIsCheckedWhole() {
        #expect(ContentRange("bytes 100-199/5000")?.first == 100)
        #expect(ContentRange("bytes 100-199/5000")?.total == 5000)
        #expect(ContentRange("bytes 100-199/5000")?.last == 199)
        #expect(ContentRange("bytes */5000")?.total == 5000)
        #expect(ContentRange("bytes 0-9/*")?.total == nil)
        for value in [
            "bytes -1-5/10", "bytes +1-5/10", "bytes 5-1/10", "bytes 0-10/10", "bytes 0-5/-10", "bytes 0-5/+10",
            "bytes 0-5/abc", "bytes 0-99999999999999999999/*", "bytes 0/10", "items 0-5/10",
        ] {
            #expect(ContentRange(value) == nil, "\(value)")
        }
    }
}
