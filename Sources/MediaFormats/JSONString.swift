/// A JSON string literal (RFC 8259 §7) written by hand, for the few places that build JSON text
/// themselves because `JSONEncoder` cost too much on a hot path: quotes, backslashes and
/// control characters (and DEL) escaped, everything else as it is.
public enum JSONString {
    /// Appends `text` to `out` as a quoted JSON string.
    public static func append(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
