/// One attribute value of an attribute list, with readers for the value types of RFC 8216
/// section 4.2. The readers return nil when the value is not of that type (`integer` of a quoted
/// string is nil, as the RFC gives quoted and unquoted values different meanings).
public struct HLSAttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// The value without its quotes, with `{$name}` variable references already applied.
    public let text: String
    /// Whether the value was written as a quoted string.
    public let isQuoted: Bool

    public init(text: String, isQuoted: Bool) {
        self.text = text
        self.isQuoted = isQuoted
    }

    /// A quoted string (`"…"`); it must not contain `"`, CR or LF.
    public static func quoted(_ text: String) -> HLSAttributeValue { HLSAttributeValue(text: text, isQuoted: true) }

    /// An unquoted value: enumerated string, number, hexadecimal sequence or resolution, as written.
    public static func unquoted(_ text: String) -> HLSAttributeValue { HLSAttributeValue(text: text, isQuoted: false) }

    /// A `decimal-integer`.
    public static func integer(_ value: Int) -> HLSAttributeValue { .unquoted(String(value)) }

    /// A `decimal-integer` value.
    public var integer: Int? {
        guard !isQuoted else { return nil }
        return read { HLSBytes.decimalInteger($0, 0, $0.count) }
    }

    /// A `decimal-floating-point` or `signed-decimal-floating-point` value (a decimal integer reads too).
    public var decimal: Double? {
        guard !isQuoted else { return nil }
        return read { HLSBytes.decimalFloat($0, 0, $0.count, signed: true) }
    }

    /// A `decimal-resolution` value.
    public var resolution: HLSResolution? {
        guard !isQuoted else { return nil }
        return read { HLSBytes.resolution($0, 0, $0.count) }
    }

    /// `YES` or `NO`.
    public var boolean: Bool? {
        guard !isQuoted else { return nil }
        switch text {
        case "YES": return true
        case "NO": return false
        default: return nil
        }
    }

    /// The bytes of a `hexadecimal-sequence` (`0x…`); an odd digit count reads as if it had a
    /// leading zero.
    public var hexadecimalBytes: [UInt8]? {
        guard !isQuoted, read({ HLSBytes.isHexadecimal($0, 0, $0.count) }) == true else { return nil }
        var digits = Array(text.utf8.dropFirst(2))
        if digits.count % 2 == 1 { digits.insert(0x30, at: 0) }
        func nibble(_ byte: UInt8) -> UInt8 { byte &- 0x30 < 10 ? byte &- 0x30 : (byte | 0x20) &- 0x61 &+ 10 }
        return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }

    /// The value as written in a playlist: quoted strings in quotes.
    public var description: String { isQuoted ? "\"\(text)\"" : text }

    private func read<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        var text = text
        return text.withUTF8(body)
    }
}
