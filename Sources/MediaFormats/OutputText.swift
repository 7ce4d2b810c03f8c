/// Provider text made safe for the files players read: the one rule every output writer (M3U,
/// XMLTV, Xtream JSON, HDHomeRun, the web pages) applies to names, groups, titles, descriptions,
/// logos and URLs before it writes them.
///
/// Providers send names with line breaks and other control characters. In an M3U a CR or LF
/// starts a new `#EXTINF` or URL line (a channel that adds channels); XML 1.0 forbids most C0
/// characters and `tv_validate_file` refuses C1 ones (NEL, U+0085); players that split lines the
/// way JavaScript or Python's `splitlines` do also break on U+2028, U+2029 and the C0 separators.
/// So each run of C0 (U+0000–U+001F, tab included), DEL and C1 (U+007F–U+009F), U+2028 and
/// U+2029 becomes one space. Everything else (emoji, combining marks, any script) stays as it is.
///
/// The catalog keeps the provider's text as it came (search and the API see it unchanged); only
/// what goes out to players is cleaned, so the rule lives in one place instead of every importer.
public enum OutputText {
    /// `text` on one line: each run of control or line-separator characters as one space.
    /// Text without any (nearly all) is returned as it is, after one scan of its bytes.
    public static func line(_ text: String) -> String {
        guard containsUnsafe(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                pendingSpace = true
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        if pendingSpace { out.unicodeScalars.append(" ") }
        return out
    }

    /// `text` for a double-quoted M3U attribute: ``line(_:)``, and `"` as `'`. M3U has no
    /// escapes, and the players' parsers read an attribute up to its next `"`.
    public static func attribute(_ text: String) -> String {
        guard scan(text, quotes: true) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in line(text).unicodeScalars {
            out.unicodeScalars.append(character == "\"" ? "'" : character)
        }
        return out
    }

    /// The optional form of ``line(_:)``.
    public static func line(_ text: String?) -> String? {
        text.map { line($0) }
    }

    /// Whether ``line(_:)`` replaces `scalar`: C0, DEL, C1, U+2028 and U+2029.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Whether `text` holds a character ``isUnsafe(_:)`` names, found from its UTF-8 bytes without
    /// decoding: a byte below 0x20 or 0x7F (C0, DEL), `C2 80`–`C2 9F` (C1), `E2 80 A8`–`E2 80 A9`.
    public static func containsUnsafe(_ text: String) -> Bool {
        scan(text, quotes: false)
    }

    /// One pass over the bytes (with `"` too for attributes), no allocation: this runs for every
    /// name, group and URL of every output read.
    static func scan(_ text: String, quotes: Bool) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ scan(bytes: $0, quotes: quotes) }) {
            return found
        }
        return Array(text.utf8).withUnsafeBufferPointer { scan(bytes: $0, quotes: quotes) }
    }

    /// `C2` and `E2` are only ever lead bytes in valid UTF-8 (what a `String` holds), so the
    /// bytes after them are their continuations.
    static func scan(bytes: UnsafeBufferPointer<UInt8>, quotes: Bool) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            // Printable ASCII, nearly every byte: one comparison.
            if byte &- 0x20 < 0x5F {
                if quotes, byte == UInt8(ascii: "\"") { return true }
                continue
            }
            if byte < 0x20 || byte == 0x7F { return true }
            if byte == 0xC2, index < count, bytes[index] < 0xA0 { return true }
            if byte == 0xE2, index + 1 < count, bytes[index] == 0x80, bytes[index + 1] & 0xFE == 0xA8 {
                return true
            }
        }
        return false
    }
}
