/// One `NAME=value` pair found in a line, as byte offsets into the playlist text.
struct HLSRawAttribute: Sendable {
    var nameStart: Int
    var nameEnd: Int
    /// The value without its quotes when `isQuoted`.
    var valueStart: Int
    var valueEnd: Int
    var isQuoted: Bool
}

/// Splits an attribute list (RFC 8216 section 4.2) into byte ranges.
///
/// It accepts whitespace after commas and a trailing comma, which the RFC forbids but which real
/// playlists (Apple's own bipbop among them) contain and which change no meaning. Anything that
/// would be ambiguous (an unterminated quote, a pair without `=`) is reported; the pairs read up to
/// that point, and a best guess at the broken one, are still returned so that a lenient parse can
/// still find and rewrite a URI.
enum HLSAttributeScanner {
    static func scan(
        _ p: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, into attributes: inout [HLSRawAttribute]
    ) -> String? {
        attributes.removeAll(keepingCapacity: true)
        var i = lo
        while true {
            while i < hi, HLSBytes.isSpace(p[i]) { i += 1 }
            if i >= hi { return nil }
            let nameStart = i
            while i < hi, p[i] != HLSBytes.equals, p[i] != HLSBytes.comma, p[i] != HLSBytes.quote { i += 1 }
            var nameEnd = i
            while nameEnd > nameStart, HLSBytes.isSpace(p[nameEnd - 1]) { nameEnd -= 1 }
            guard i < hi, p[i] == HLSBytes.equals else {
                return "expected NAME=value, found '\(HLSBytes.snippet(p, nameStart, max(i, nameStart + 1)))'"
            }
            guard nameEnd > nameStart else { return "attribute without a name before '='" }
            var n = nameStart
            while n < nameEnd {
                let byte = p[n]
                guard HLSBytes.isVariableNameByte(byte) else {
                    return "invalid attribute name '\(HLSBytes.snippet(p, nameStart, nameEnd))'"
                }
                n += 1
            }
            i += 1  // '='
            if i < hi, p[i] == HLSBytes.quote {
                let valueStart = i + 1
                guard let close = HLSBytes.firstIndex(of: HLSBytes.quote, p, valueStart, hi) else {
                    attributes.append(
                        HLSRawAttribute(
                            nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: hi, isQuoted: true
                        ))
                    return "unterminated quoted string in \(HLSBytes.snippet(p, nameStart, nameEnd))"
                }
                attributes.append(
                    HLSRawAttribute(
                        nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: close, isQuoted: true)
                )
                i = close + 1
                while i < hi, HLSBytes.isSpace(p[i]) { i += 1 }
                if i < hi {
                    guard p[i] == HLSBytes.comma else {
                        return
                            """
                            unexpected '\(HLSBytes.snippet(p, i, i + 1))' after the quoted value of \
                            \(HLSBytes.snippet(p, nameStart, nameEnd))
                            """
                    }
                    i += 1
                }
            } else {
                let valueStart = i
                while i < hi, p[i] != HLSBytes.comma { i += 1 }
                var valueEnd = i
                while valueEnd > valueStart, HLSBytes.isSpace(p[valueEnd - 1]) { valueEnd -= 1 }
                attributes.append(
                    HLSRawAttribute(
                        nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd,
                        isQuoted: false))
                guard valueEnd > valueStart else {
                    return "attribute \(HLSBytes.snippet(p, nameStart, nameEnd)) has an empty value"
                }
                if let quote = HLSBytes.firstIndex(of: HLSBytes.quote, p, valueStart, valueEnd) {
                    return
                        """
                        stray '\"' in the value of \(HLSBytes.snippet(p, nameStart, nameEnd)) at \
                        '\(HLSBytes.snippet(p, quote, valueEnd))'
                        """
                }
                if i < hi { i += 1 }  // ','
            }
        }
    }
}
