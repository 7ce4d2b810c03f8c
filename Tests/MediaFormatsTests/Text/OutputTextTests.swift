import Foundation
import MediaFormats
import Testing

/// The one cleaner every output writer applies: each run of control and line-separator
/// characters is one space, and nothing else changes.
@Suite struct OutputTextTests {
    /// Every code point the rule names: C0, DEL, C1, LINE SEPARATOR and PARAGRAPH SEPARATOR.
    static let unsafe: [UInt32] = Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x2028, 0x2029]

    @Test func everyListedCodePointBecomesASpace() throws {
        for value in Self.unsafe {
            let scalar = try #require(Unicode.Scalar(value))
            let text = "a" + String(Character(scalar)) + "b"
            #expect(OutputText.containsUnsafe(text), "U+\(String(value, radix: 16))")
            #expect(OutputText.isUnsafe(scalar))
            #expect(OutputText.line(text) == "a b", "U+\(String(value, radix: 16))")
            #expect(OutputText.attribute(text) == "a b")
        }
        // All of them at once are one run: one space.
        let all = String(String.UnicodeScalarView(Self.unsafe.compactMap(Unicode.Scalar.init)))
        #expect(OutputText.line("x" + all + "y") == "x y")
    }

    @Test func neighboursOfTheListedCodePointsStay() throws {
        // Space, the first printable after DEL's block (NBSP), the scalars around U+2028/9, the
        // replacement character, and code points whose UTF-8 shares a lead byte with C1 or U+2028.
        for value: UInt32 in [0x20, 0x7E, 0xA0, 0xA9, 0xBF, 0x2027, 0x202A, 0x202F, 0x2000, 0x203C, 0xFFFD] {
            let text = "a" + String(Character(try #require(Unicode.Scalar(value)))) + "b"
            #expect(!OutputText.containsUnsafe(text), "U+\(String(value, radix: 16))")
            #expect(OutputText.line(text) == text, "U+\(String(value, radix: 16))")
        }
    }

    @Test func theByteScanAgreesWithTheScalarRuleOnTheWholeBMPStart() throws {
        // The fast check reads bytes; the rule is about scalars. They must agree for every scalar
        // whose UTF-8 could look like a listed one (one-, two- and three-byte forms up to U+3000).
        for value in UInt32(0)...0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            // Small strings (inline) and large ones (heap storage), the scalar last and inside.
            for text in [
                "é" + String(Character(scalar)), String(repeating: "ü", count: 12) + String(Character(scalar)) + "x",
            ] {
                #expect(OutputText.containsUnsafe(text) == OutputText.isUnsafe(scalar), "U+\(String(value, radix: 16))")
                let quoted = OutputText.attribute(text) != text
                #expect(quoted == (OutputText.isUnsafe(scalar) || scalar == "\""), "U+\(String(value, radix: 16))")
            }
        }
    }

    @Test func runsOfBreaksAreOneSpace() {
        #expect(OutputText.line("A\r\n#EXTINF:-1,Injected\r\nhttp://evil/") == "A #EXTINF:-1,Injected http://evil/")
        #expect(OutputText.line("one\r\n\r\n\u{85}\u{2028}\ttwo") == "one two")
        #expect(OutputText.line("\r\nleading and trailing\n") == " leading and trailing ")
        #expect(OutputText.line("tab\tseparated") == "tab separated")
        #expect(OutputText.line("\u{0}") == " ")
        #expect(OutputText.line("") == "")
    }

    @Test func emojiCombiningMarksAndScriptsStay() {
        for text in [
            "Café", "Cafe\u{301}", "👨‍👩‍👧 Family", "🇬🇧 BBC One", "漢字 チャンネル", "עברית", "a\u{200D}b", "Zero\u{200B}Width",
            "“Curly” – dash … ellipsis", "© ® ° ± ·",
        ] {
            #expect(!OutputText.containsUnsafe(text), "\(text)")
            #expect(OutputText.line(text) == text)
        }
        // Marks after a break stay with what follows.
        #expect(OutputText.line("e\n\u{301}x") == "e \u{301}x")
        #expect(OutputText.line("🎬\u{85}🎬") == "🎬 🎬")
    }

    @Test func attributesNeverHoldADoubleQuote() {
        #expect(OutputText.attribute(#"The "Best" Channel"#) == "The 'Best' Channel")
        #expect(OutputText.attribute("\"\n\"") == "' '")
        #expect(OutputText.attribute("plain") == "plain")
        #expect(OutputText.line(#"titles keep "quotes""#) == #"titles keep "quotes""#)
        #expect(OutputText.line(nil as String?) == nil)
        #expect(OutputText.line("a\nb" as String?) == "a b")
    }

    @Test func textFromInvalidBytesIsCleanedAsDecoded() {
        // Invalid UTF-8 decodes to U+FFFD (kept); the controls around it still go. An overlong
        // NEL (C1 in a disguise) is no NEL once decoded: replacement characters.
        let bytes: [UInt8] = [0x41, 0xFF, 0x0D, 0x0A, 0xC0, 0x85, 0xC2, 0x85, 0xE2, 0x80, 0x42]
        let text = String(decoding: bytes, as: UTF8.self)
        let clean = OutputText.line(text)
        #expect(!clean.unicodeScalars.contains { OutputText.isUnsafe($0) })
        #expect(clean.hasPrefix("A\u{FFFD} \u{FFFD}\u{FFFD} \u{FFFD}"), "\(clean.unicodeScalars.map(\.value))")
        #expect(clean.hasSuffix("B"))
        // A string that is nothing but controls is one space, never empty or a trap.
        #expect(OutputText.line(String(repeating: "\u{1}\u{9F}", count: 10_000)) == " ")
    }

    @Test func cleanTextIsReturnedAsItIs() {
        let text = String(repeating: "News HD ", count: 100)
        #expect(OutputText.line(text) == text)
        #expect(OutputText.attribute(text) == text)
    }
}
