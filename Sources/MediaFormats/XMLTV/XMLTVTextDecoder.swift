/// Turns raw character data into UTF-8: decodes entity references, normalises line ends, and
/// converts single-byte encodings.
enum XMLTVTextDecoder {
    /// The document encodings read natively. Guides are nearly always UTF-8; some older
    /// generators write ISO-8859-1 or Windows-1252.
    enum Encoding: Sendable {
        case utf8
        case latin1
        case windows1252

        init?(label: String) {
            switch label.lowercased() {
            case "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf16", "utf-16le", "utf-16be": self = .utf8
            case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "iso-ir-100", "cp819":
                self = .latin1
            case "windows-1252", "cp1252", "x-cp1252": self = .windows1252
            default: return nil
            }
        }
    }

    /// Appends the decoded form of `raw` to `out`.
    ///
    /// - Parameters:
    ///   - entities: decode `&…;` references (not in CDATA).
    ///   - attribute: apply attribute-value normalisation (tabs and line ends become spaces).
    static func append(
        _ raw: UnsafeRawBufferPointer, to out: inout [UInt8], encoding: Encoding, entities: Bool, attribute: Bool
    ) {
        var convert = encoding != .utf8
        if convert, isValidUTF8(raw) {
            // Many guides declare ISO-8859-1 but are really UTF-8; bytes that form valid UTF-8
            // are vanishingly unlikely in genuine Latin-1 text, so trust them.
            convert = false
        }
        if !convert, !needsWork(raw, entities: entities, attribute: attribute) {
            out.append(contentsOf: raw)
            return
        }
        let count = raw.count
        var index = 0
        while index < count {
            let byte = raw[index]
            switch byte {
            case UInt8(ascii: "&") where entities:
                if let (scalar, length) = entity(raw, at: index) {
                    appendUTF8(scalar, to: &out)
                    index += length
                    continue
                }
                out.append(byte)  // a bare `&` (invalid, but common): keep it
            case 0x0D:
                // CRLF and lone CR become LF (XML end-of-line handling).
                if index + 1 < count, raw[index + 1] == 0x0A {
                    index += 1
                    continue
                }
                out.append(attribute ? 0x20 : 0x0A)
            case 0x0A, 0x09:
                out.append(attribute ? 0x20 : byte)
            default:
                if byte >= 0x80, convert {
                    appendUTF8(scalarValue(of: byte, in: encoding), to: &out)
                } else {
                    out.append(byte)
                }
            }
            index += 1
        }
    }

    /// Decodes `raw` into a `String`, skipping the scratch buffer when nothing needs decoding.
    static func string(_ raw: UnsafeRawBufferPointer, encoding: Encoding, scratch: inout [UInt8]) -> String {
        if encoding == .utf8, !needsWork(raw, entities: true, attribute: true) {
            return String(decoding: raw, as: UTF8.self)
        }
        scratch.removeAll(keepingCapacity: true)
        append(raw, to: &scratch, encoding: encoding, entities: true, attribute: true)
        return String(decoding: scratch, as: UTF8.self)
    }

    @inline(__always)
    private static func needsWork(_ raw: UnsafeRawBufferPointer, entities: Bool, attribute: Bool) -> Bool {
        for byte in raw {
            if byte == UInt8(ascii: "&") { if entities { return true } }
            if byte == 0x0D { return true }
            if attribute, byte == 0x0A || byte == 0x09 { return true }
        }
        return false
    }

    /// The scalar of a reference at `index` (`&amp;`, `&#233;`, `&#xE9;`…) and its length.
    private static func entity(_ raw: UnsafeRawBufferPointer, at index: Int) -> (UInt32, Int)? {
        var end = index + 1
        let limit = min(raw.count, index + 12)
        while end < limit, raw[end] != UInt8(ascii: ";") { end += 1 }
        guard end < limit, end > index + 1 else { return nil }
        let name = UnsafeRawBufferPointer(rebasing: raw[(index + 1)..<end])
        let length = end - index + 1
        if name[0] == UInt8(ascii: "#") {
            var value: UInt32 = 0
            var position = 1
            let hex = name.count > 1 && (name[1] | 0x20) == UInt8(ascii: "x")
            if hex { position = 2 }
            guard position < name.count else { return nil }
            while position < name.count {
                let byte = name[position]
                let digit: UInt32
                if byte &- 0x30 < 10 {
                    digit = UInt32(byte &- 0x30)
                } else if hex, (byte | 0x20) &- 0x61 < 6 {
                    digit = UInt32((byte | 0x20) &- 0x61 + 10)
                } else {
                    return nil
                }
                value = value &* (hex ? 16 : 10) &+ digit
                guard value <= 0x10FFFF else { return nil }
                position += 1
            }
            guard Unicode.Scalar(value) != nil, value != 0 else { return nil }
            return (value, length)
        }
        switch name.count {
        case 2:
            if name[0] == UInt8(ascii: "l"), name[1] == UInt8(ascii: "t") { return (0x3C, length) }
            if name[0] == UInt8(ascii: "g"), name[1] == UInt8(ascii: "t") { return (0x3E, length) }
        case 3:
            if XMLTVScanner.equals(name, "amp") { return (0x26, length) }
        case 4:
            if XMLTVScanner.equals(name, "apos") { return (0x27, length) }
            if XMLTVScanner.equals(name, "quot") { return (0x22, length) }
            if XMLTVScanner.equals(name, "nbsp") { return (0xA0, length) }  // HTML habit, common in guides
        default: break
        }
        return nil
    }

    @inline(__always)
    private static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        switch value {
        case 0..<0x80:
            out.append(UInt8(value))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (value >> 6)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (value >> 12)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (value >> 18)))
            out.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (value & 0x3F)))
        }
    }

    /// Windows-1252 differs from Latin-1 only in 0x80–0x9F, where it has printable characters.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,
        0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,
        0x017E, 0x0178,
    ]

    private static func scalarValue(of byte: UInt8, in encoding: Encoding) -> UInt32 {
        if encoding == .windows1252, byte < 0xA0 { return windows1252High[Int(byte - 0x80)] }
        return UInt32(byte)
    }

    /// Whether `raw` is well-formed UTF-8 (pure ASCII included).
    static func isValidUTF8(_ raw: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = raw.count
        while index < count {
            let lead = raw[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            if lead & 0xE0 == 0xC0, lead >= 0xC2 {
                length = 2
            } else if lead & 0xF0 == 0xE0 {
                length = 3
            } else if lead & 0xF8 == 0xF0, lead <= 0xF4 {
                length = 4
            } else {
                return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length where raw[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
