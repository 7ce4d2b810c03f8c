/// A JSON string literal (RFC 8259 §7) written by hand, for the few places that build JSON text
/// themselves because `JSONEncoder` cost too much on a hot path: quotes, backslashes and
/// control characters (and DEL) escaped, everything else as it is.
public enum JSONString {
    /// Appends `text` to `out` as a quoted JSON string.
    public static func append(_ text: String, to out: inout String) {
        // Most text needs no escape at all: appended as it is, without a look at each scalar.
        guard text.utf8.contains(where: needsEscape) else {
            out += "\""
            out += text
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        append(text, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` to `json` (UTF-8) as a quoted JSON string: the same bytes as the `String`
    /// variant, for builders that write bytes (sealed stream links).
    public static func append(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            guard needsEscape(byte) else {
                json.append(byte)
                continue
            }
            json.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): json.append(byte)
            case 0x0A: json.append(UInt8(ascii: "n"))
            case 0x0D: json.append(UInt8(ascii: "r"))
            case 0x09: json.append(UInt8(ascii: "t"))
            default:
                json.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                json.append(hexDigits[Int(byte >> 4)])
                json.append(hexDigits[Int(byte & 0xF)])
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    /// Quotes, backslashes, control characters and DEL. Bytes of multi-byte UTF-8 sequences
    /// (0x80 and up) never are, so scanning bytes finds exactly the scalars to escape.
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
