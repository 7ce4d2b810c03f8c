import Foundation
import MediaFormats
import Testing

/// The hand-written JSON string literal that the M3U headers, the transfer history, the
/// HDHomeRun lineup and sealed stream links share: what `JSONDecoder` reads back is the text
/// given, and the byte and `String` variants write the same bytes.
@Suite struct JSONStringTests {
    static let samples: [String] = [
        "", "plain text", "Mozilla/5.0 (Smart TV; Linux)", #"a "quoted" \ path"#, "line\nbreak\rreturn\ttab",
        "\u{0}\u{1}\u{1F}\u{7F} controls and DEL", "é 漢字 🎬 emoji", "http://example.com/live/user/pass/1.ts?a=1&b=2",
        "</script><script>alert(1)</script>",
    ]

    @Test(arguments: samples)
    func readsBackAsTheSameText(_ text: String) throws {
        var string = ""
        JSONString.append(text, to: &string)
        var bytes: [UInt8] = []
        JSONString.append(text, to: &bytes)
        #expect(Array(string.utf8) == bytes)
        #expect(try JSONDecoder().decode(String.self, from: Data(bytes)) == text)
        // No raw control byte or DEL survives: the literal is one line of printable JSON.
        #expect(!bytes.contains { $0 < 0x20 || $0 == 0x7F })
    }
}
