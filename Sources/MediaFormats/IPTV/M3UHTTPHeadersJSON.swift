/// Reads and writes the flat JSON object of `#EXTHTTP:{"User-Agent":"…","Cookie":"…"}`.
///
/// A dedicated reader rather than `JSONSerialization` because the order of the headers must
/// survive (a dictionary loses it) and because the tag is too simple to justify the cost.
enum M3UHTTPHeadersJSON {
    /// The pairs of a JSON object whose values are strings (numbers and booleans are kept as
    /// their text); `nil` when the text is not such an object.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [M3UAttribute]? {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        guard reader.take(UInt8(ascii: "{")) else { return nil }
        var pairs: [M3UAttribute] = []
        reader.skipSpace()
        if reader.take(UInt8(ascii: "}")) { return reader.atEndAfterSpace() ? pairs : nil }
        while true {
            reader.skipSpace()
            guard let name = reader.string() else { return nil }
            reader.skipSpace()
            guard reader.take(UInt8(ascii: ":")) else { return nil }
            reader.skipSpace()
            guard let value = reader.string() ?? reader.scalarToken() else { return nil }
            pairs.append(M3UAttribute(name: name, value: value))
            reader.skipSpace()
            if reader.take(UInt8(ascii: ",")) { continue }
            guard reader.take(UInt8(ascii: "}")) else { return nil }
            return reader.atEndAfterSpace() ? pairs : nil
        }
    }

    static func serialize(_ pairs: [M3UAttribute]) -> String {
        var out = "{"
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out += "," }
            JSONString.append(pair.name, to: &out)
            out += ":"
            JSONString.append(pair.value, to: &out)
        }
        return out + "}"
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D
            {
                index += 1
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func atEndAfterSpace() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        /// A bare number, `true`, `false` or `null`, as its text.
        mutating func scalarToken() -> String? {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                let isTokenByte =
                    byte &- 0x30 < 10 || M3UText.lowercased(byte) &- 0x61 < 26
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                guard isTokenByte else { break }
                index += 1
            }
            return index > start ? M3UText.string(M3UText.slice(bytes, start, index)) : nil
        }

        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var utf8: [UInt8] = []
            var pendingHighSurrogate: UInt32?
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    return String(decoding: utf8, as: UTF8.self)
                }
                guard byte == UInt8(ascii: "\\") else {
                    utf8.append(byte)
                    continue
                }
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let code = UInt32(M3UText.string(M3UText.slice(bytes, index, index + 4)), radix: 16)
                    else { return nil }
                    index += 4
                    var scalarValue = code
                    if (0xD800...0xDBFF).contains(code) {
                        pendingHighSurrogate = code
                        continue
                    }
                    if (0xDC00...0xDFFF).contains(code), let high = pendingHighSurrogate {
                        scalarValue = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                    }
                    pendingHighSurrogate = nil
                    let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                    utf8.append(contentsOf: String(Character(scalar)).utf8)
                default: utf8.append(escape)
                }
            }
            return nil
        }
    }
}
