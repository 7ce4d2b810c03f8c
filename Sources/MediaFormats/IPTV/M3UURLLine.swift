/// Reads and writes the location line of an entry, including the Kodi-style header suffix
/// `url|User-Agent=…&Referer=…` (values percent-encoded, or in double quotes).
enum M3UURLLine {
    /// Splits a trimmed location line into the URL and its header suffix. A `|` only starts
    /// headers when what follows is empty or contains `=`, so a stray `|` in a URL survives.
    static func split(_ line: UnsafeRawBufferPointer) -> (url: UnsafeRawBufferPointer, headers: UnsafeRawBufferPointer?)
    {
        guard let bar = line.firstIndex(of: UInt8(ascii: "|")) else { return (line, nil) }
        let rest = M3UText.slice(line, bar + 1, line.count)
        guard rest.isEmpty || M3UText.contains(rest, UInt8(ascii: "=")) else { return (line, nil) }
        return (M3UText.trimmed(M3UText.slice(line, 0, bar)), rest)
    }

    /// Parses `Name=value&Name2="value 2"` pairs.
    static func parseHeaders(_ bytes: UnsafeRawBufferPointer, line: Int, warnings: inout [M3UWarning]) -> [M3UAttribute]
    {
        var headers: [M3UAttribute] = []
        var index = 0
        let count = bytes.count
        while index < count {
            while index < count, bytes[index] == UInt8(ascii: "&") || M3UText.isSpace(bytes[index]) { index += 1 }
            guard index < count else { break }
            let nameStart = index
            while index < count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: "&") { index += 1 }
            let name = M3UText.trimmed(M3UText.slice(bytes, nameStart, index))
            guard index < count, bytes[index] == UInt8(ascii: "=") else {
                warnings.append(M3UWarning(line: line, kind: .invalidURLHeader, detail: M3UText.excerpt(name)))
                continue
            }
            index += 1
            let value: String
            if index < count, bytes[index] == UInt8(ascii: "\"") {
                // Quoted form: `&` inside the quotes belongs to the value.
                let valueStart = index + 1
                var close = valueStart
                while close < count, bytes[close] != UInt8(ascii: "\"") { close += 1 }
                value = M3UText.string(M3UText.slice(bytes, valueStart, close))
                index = min(close + 1, count)
            } else {
                let valueStart = index
                while index < count, bytes[index] != UInt8(ascii: "&") { index += 1 }
                value = percentDecoded(M3UText.trimmed(M3UText.slice(bytes, valueStart, index)))
            }
            if !name.isEmpty {
                headers.append(M3UAttribute(name: M3UText.string(name), value: value))
            }
        }
        return headers
    }

    /// Percent-decodes valid `%XX` escapes; a `%` that does not start one is kept as is, because
    /// many playlists write raw user agents that may contain a lone `%`.
    static func percentDecoded(_ bytes: UnsafeRawBufferPointer) -> String {
        guard M3UText.contains(bytes, UInt8(ascii: "%")) else { return M3UText.string(bytes) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Escapes what would otherwise end or corrupt a header value on the URL line.
    static func percentEncoded(_ value: String) -> String {
        var needsWork = false
        for byte in value.utf8 where needsEscape(byte) {
            needsWork = true
            break
        }
        guard needsWork else { return value }
        var encoded: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in value.utf8 {
            if needsEscape(byte) {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hex[Int(byte >> 4)])
                encoded.append(hex[Int(byte & 0x0F)])
            } else {
                encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "|")
            || byte == UInt8(ascii: "\"") || byte < 0x20 || byte == 0x7F
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether a line that follows no `#EXTINF` is a location (plain M3U lists bare paths) rather
    /// than junk such as `====== sudan ======` separators that some hand-made lists contain.
    static func looksLikeLocation(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first else { return false }
        var hasSeparator = false
        var hasSpace = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":"), index + 2 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
            {
                return true
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: ".") {
                hasSeparator = true
            }
            if M3UText.isSpace(byte) { hasSpace = true }
            index += 1
        }
        if first == UInt8(ascii: "/") || first == UInt8(ascii: "\\") || first == UInt8(ascii: ".") { return true }
        // A Windows drive path such as C:\Music\a.mp3.
        if bytes.count > 2, M3UText.lowercased(first) &- 0x61 < 26, bytes[1] == UInt8(ascii: ":"),
            bytes[2] == UInt8(ascii: "\\") || bytes[2] == UInt8(ascii: "/")
        {
            return true
        }
        let alphanumeric = M3UText.lowercased(first) &- 0x61 < 26 || first &- 0x30 < 10 || first >= 0x80
        return alphanumeric && hasSeparator && !hasSpace
    }
}
