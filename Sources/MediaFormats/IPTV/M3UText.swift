/// Byte-level helpers shared by the M3U reader and writer. The parser works on UTF-8 bytes rather
/// than `String`/`Character` because per-character `String` work is what makes naive M3U parsers
/// slow on 200,000-entry provider playlists.
enum M3UText {
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    static func slice(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return slice(bytes, start, end)
    }

    static func trimmed(_ text: Substring) -> String {
        var start = text.utf8.startIndex
        var end = text.utf8.endIndex
        while start < end, isSpace(text.utf8[start]) { start = text.utf8.index(after: start) }
        while end > start, isSpace(text.utf8[text.utf8.index(before: end)]) { end = text.utf8.index(before: end) }
        return String(text[start..<end])
    }

    /// Whether `bytes` equals `lowercaseLiteral`, ignoring ASCII case in `bytes`.
    static func equals(_ bytes: UnsafeRawBufferPointer, lowercaseLiteral literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && hasPrefix(bytes, lowercaseLiteral: literal)
    }

    /// Whether `bytes` starts with `lowercaseLiteral`, ignoring ASCII case in `bytes`.
    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, lowercaseLiteral literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let pattern = literal.utf8Start
        for index in 0..<count where lowercased(bytes[index]) != pattern[index] {
            return false
        }
        return true
    }

    static func equalsIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    static func hasPrefixIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count
            && zip(text.utf8, prefix.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    static func contains(_ bytes: UnsafeRawBufferPointer, _ byte: UInt8) -> Bool {
        for candidate in bytes where candidate == byte { return true }
        return false
    }

    /// The conventional spelling of the headers players care about, so that `user-agent`,
    /// `User-Agent` and VLC's `http-user-agent` all end up as one header.
    static func canonicalHeaderName(_ name: String) -> String {
        if equalsIgnoringASCIICase(name, "user-agent") { return "User-Agent" }
        if equalsIgnoringASCIICase(name, "referer") || equalsIgnoringASCIICase(name, "referrer") { return "Referer" }
        if equalsIgnoringASCIICase(name, "origin") { return "Origin" }
        if equalsIgnoringASCIICase(name, "cookie") { return "Cookie" }
        return name
    }

    /// An `#EXTINF` duration: an optionally signed decimal number. The common integer forms
    /// (`-1`, `0`, `3600`) are read without allocating.
    static func duration(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty else { return nil }
        var index = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            index = 1
        }
        var value = 0
        var digits = 0
        while index < bytes.count, bytes[index] &- 0x30 < 10, digits < 15 {
            value = value * 10 + Int(bytes[index] &- 0x30)
            index += 1
            digits += 1
        }
        if index == bytes.count, digits > 0 {
            return Double(negative ? -value : value)
        }
        // Fractions and exotic spellings are rare; let the standard library get them exactly right.
        guard let parsed = Double(string(bytes)), parsed.isFinite else { return nil }
        return parsed
    }

    /// Shortens `text` for a warning's detail so that one pathological line cannot blow up memory.
    static func excerpt(_ bytes: UnsafeRawBufferPointer, limit: Int = 120) -> String {
        if bytes.count <= limit { return string(bytes) }
        var end = limit
        // Do not cut a UTF-8 sequence in half.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return string(slice(bytes, 0, end)) + "…"
    }
}
