/// Byte-level readers for the value forms of RFC 8216 section 4.2.
///
/// They work on `UnsafeBufferPointer<UInt8>` ranges of the playlist text, so parsing a line never
/// creates a `String` unless the caller asks for one: this is what keeps a 40,000-segment playlist
/// in the low milliseconds.
enum HLSBytes {
    static let quote: UInt8 = 0x22  // "
    static let hash: UInt8 = 0x23  // #
    static let comma: UInt8 = 0x2C  // ,
    static let minus: UInt8 = 0x2D  // -
    static let dot: UInt8 = 0x2E  // .
    static let colon: UInt8 = 0x3A  // :
    static let equals: UInt8 = 0x3D  // =
    static let at: UInt8 = 0x40  // @
    static let dollar: UInt8 = 0x24  // $
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    static func equals(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ bytes: [UInt8]) -> Bool {
        guard hi - lo == bytes.count else { return false }
        var i = 0
        while i < bytes.count {
            if p[lo + i] != bytes[i] { return false }
            i += 1
        }
        return true
    }

    static func equals(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ lo2: Int, _ hi2: Int) -> Bool {
        guard hi - lo == hi2 - lo2 else { return false }
        var i = 0
        while i < hi - lo {
            if p[lo + i] != p[lo2 + i] { return false }
            i += 1
        }
        return true
    }

    static func string(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: p[lo..<hi]), as: UTF8.self)
    }

    /// The text of `p[lo..<hi]` shortened for an error message.
    static func snippet(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> String {
        let limit = 60
        if hi - lo <= limit { return string(p, lo, hi) }
        return string(p, lo, lo + limit) + "…"
    }

    static func firstIndex(of byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Int? {
        var i = lo
        while i < hi {
            if p[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// A `decimal-integer`: digits only, no sign. Nil when malformed or beyond `Int.max`.
    static func decimalInteger(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Int? {
        guard lo < hi else { return nil }
        var value = 0
        var i = lo
        while i < hi {
            let digit = p[i] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit))
            if overflow1 || overflow2 { return nil }
            value = sum
            i += 1
        }
        return value
    }

    private static let powersOf10: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A `decimal-floating-point` (digits and at most one `.`), or a
    /// `signed-decimal-floating-point` when `signed`.
    ///
    /// Values of up to 15 digits are computed exactly as `mantissa / 10^k` (both exact doubles, so
    /// the division is correctly rounded); longer ones fall back to the standard library.
    static func decimalFloat(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, signed: Bool) -> Double? {
        var i = lo
        var negative = false
        if signed, i < hi, p[i] == minus {
            negative = true
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var sawDot = false
        while i < hi {
            let byte = p[i]
            let digit = byte &- 0x30
            if digit < 10 {
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(digit) }
                digits += 1
                if sawDot { fractionDigits += 1 }
            } else if byte == dot, !sawDot {
                sawDot = true
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        let magnitude: Double
        if digits <= 15 {
            magnitude = Double(mantissa) / powersOf10[fractionDigits]
        } else {
            guard let parsed = Double(string(p, negative ? lo + 1 : lo, hi)) else { return nil }
            magnitude = parsed
        }
        return negative ? -magnitude : magnitude
    }

    /// A `hexadecimal-sequence`: `0x` or `0X` then hex digits (either case, as real playlists use both).
    static func isHexadecimal(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Bool {
        guard hi - lo > 2, p[lo] == 0x30, p[lo + 1] == 0x78 || p[lo + 1] == 0x58 else { return false }
        var i = lo + 2
        while i < hi {
            let byte = p[i]
            let isHex = (byte &- 0x30 < 10) || (byte | 0x20) &- 0x61 < 6
            guard isHex else { return false }
            i += 1
        }
        return true
    }

    /// A `decimal-resolution`: `WIDTHxHEIGHT`.
    static func resolution(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> HLSResolution? {
        guard let x = firstIndex(of: 0x78, p, lo, hi),
            let width = decimalInteger(p, lo, x),
            let height = decimalInteger(p, x + 1, hi)
        else { return nil }
        return HLSResolution(width: width, height: height)
    }

    /// The largest media or discontinuity sequence number, and skipped-segment total, a playlist may give
    /// (2^53 - 1, what a JavaScript player can count to). Bounding them at parse time keeps every later
    /// `sequence + segment count` sum far from `Int.max`.
    static let largestSequenceNumber = (1 << 53) - 1

    /// `n[@o]`, the byte-range form of `#EXT-X-BYTERANGE` and of `BYTERANGE=` attributes.
    ///
    /// Nil also when `o + n` does not fit in an `Int`: such a range ends past any possible resource, and
    /// callers compute the end.
    static func byteRange(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> (length: Int, offset: Int?)? {
        if let at = firstIndex(of: at, p, lo, hi) {
            guard let length = decimalInteger(p, lo, at), let offset = decimalInteger(p, at + 1, hi),
                !offset.addingReportingOverflow(length).overflow
            else {
                return nil
            }
            return (length, offset)
        }
        guard let length = decimalInteger(p, lo, hi) else { return nil }
        return (length, nil)
    }

    /// Whether `p[lo..<hi]` is well-formed UTF-8; only called for lines that have non-ASCII bytes.
    static func isValidUTF8(_ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int) -> Bool {
        var iterator = UnsafeBufferPointer(rebasing: p[lo..<hi]).makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether a byte may appear in a variable name (`[a-zA-Z0-9-_]`, RFC 8216bis 4.4.2.3).
    @inline(__always)
    static func isVariableNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10 || byte == minus || byte == 0x5F
    }

    /// Replaces `{$name}` references in `p[lo..<hi]` with their values.
    ///
    /// Returns nil when the range holds no reference, so callers keep their fast path; otherwise the
    /// substituted text and the first name that had no definition (its reference is left as written).
    static func substituteVariables(
        _ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ variables: [String: String]
    ) -> (text: String, undefined: String?)? {
        guard var brace = firstIndex(of: openBrace, p, lo, hi) else { return nil }
        var output: [UInt8] = []
        var undefined: String?
        var copied = lo
        var found = false
        while true {
            if brace + 2 < hi, p[brace + 1] == dollar {
                var end = brace + 2
                while end < hi, isVariableNameByte(p[end]) { end += 1 }
                if end < hi, p[end] == closeBrace, end > brace + 2 {
                    found = true
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<brace]))
                    let name = string(p, brace + 2, end)
                    if let value = variables[name] {
                        output.append(contentsOf: value.utf8)
                    } else {
                        if undefined == nil { undefined = name }
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: p[brace...end]))
                    }
                    copied = end + 1
                }
            }
            guard let next = firstIndex(of: openBrace, p, brace + 1, hi) else { break }
            brace = next
        }
        guard found else { return nil }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<hi]))
        return (String(decoding: output, as: UTF8.self), undefined)
    }
}
