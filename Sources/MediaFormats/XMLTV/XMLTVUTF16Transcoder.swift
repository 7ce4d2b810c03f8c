/// Converts a UTF-16 guide to UTF-8 chunk by chunk, so the scanner only ever sees UTF-8.
/// (Rare in practice, but some Windows tools write guides that way.)
struct XMLTVUTF16Transcoder: Sendable {
    let bigEndian: Bool
    private var pendingByte: UInt8?
    private var pendingHighSurrogate: UInt32?

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
    }

    /// Recognises UTF-16 by its BOM or by `<?` encoded in UTF-16; returns the BOM length too.
    static func detect(_ head: [UInt8]) -> (XMLTVUTF16Transcoder, Int)? {
        guard head.count >= 4 else { return nil }
        switch (head[0], head[1], head[2], head[3]) {
        case (0xFF, 0xFE, _, _): return (XMLTVUTF16Transcoder(bigEndian: false), 2)
        case (0xFE, 0xFF, _, _): return (XMLTVUTF16Transcoder(bigEndian: true), 2)
        case (0x3C, 0x00, 0x3F, 0x00): return (XMLTVUTF16Transcoder(bigEndian: false), 0)
        case (0x00, 0x3C, 0x00, 0x3F): return (XMLTVUTF16Transcoder(bigEndian: true), 0)
        default: return nil
        }
    }

    mutating func transcode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count)
        var index = 0
        if let first = pendingByte, !bytes.isEmpty {
            pendingByte = nil
            unit(bigEndian ? UInt32(first) << 8 | UInt32(bytes[0]) : UInt32(bytes[0]) << 8 | UInt32(first), into: &out)
            index = 1
        }
        while index + 1 < bytes.count {
            let value =
                bigEndian
                ? UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
                : UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index])
            unit(value, into: &out)
            index += 2
        }
        if index < bytes.count { pendingByte = bytes[index] }
    }

    mutating func flushIfFinal(_ final: Bool, into out: inout [UInt8]) {
        guard final else { return }
        if pendingByte != nil || pendingHighSurrogate != nil {
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
        }
        pendingByte = nil
        pendingHighSurrogate = nil
    }

    private mutating func unit(_ value: UInt32, into out: inout [UInt8]) {
        var scalar = value
        if (0xD800...0xDBFF).contains(value) {
            if pendingHighSurrogate != nil { out.append(contentsOf: [0xEF, 0xBF, 0xBD]) }
            pendingHighSurrogate = value
            return
        }
        if (0xDC00...0xDFFF).contains(value) {
            guard let high = pendingHighSurrogate else {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                return
            }
            scalar = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)
        } else if pendingHighSurrogate != nil {
            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
        }
        pendingHighSurrogate = nil
        out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
    }
}
