/// Scans the `name="value" name2='value 2' name3=value3` lists of `#EXTINF` and `#EXTM3U` lines.
///
/// Real playlists are sloppy, so the rules are lenient: either quote character, unquoted values,
/// mixed-case names, missing spaces between attributes, and quotes inside values. A quote only
/// closes a value when what follows it (after blanks) is a comma, the end of the line, or the
/// next `name=`; any other quote is part of the value.
enum M3UAttributeScanner {
    /// Calls `body` with the name and value bytes of each attribute from `start` on.
    ///
    /// - Parameter stopAtComma: `#EXTINF` mode: the first comma outside quotes ends the list and
    ///   its index is returned (the title follows it). In `#EXTM3U` mode commas are separators.
    /// - Returns: the index of the title comma, or `nil` when the line has none.
    static func scan(
        _ line: UnsafeRawBufferPointer,
        from start: Int,
        stopAtComma: Bool,
        lineNumber: Int,
        warnings: inout [M3UWarning],
        _ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void
    ) -> Int? {
        let count = line.count
        var index = start
        while true {
            while index < count, M3UText.isSpace(line[index]) { index += 1 }
            guard index < count else { return nil }
            if line[index] == UInt8(ascii: ",") {
                if stopAtComma { return index }
                index += 1
                continue
            }
            let nameStart = index
            while index < count {
                let byte = line[index]
                if byte == UInt8(ascii: "=") || byte == UInt8(ascii: ",") || M3UText.isSpace(byte) { break }
                index += 1
            }
            let name = M3UText.slice(line, nameStart, index)
            guard index < count, line[index] == UInt8(ascii: "=") else {
                warnings.append(
                    M3UWarning(line: lineNumber, kind: .attributeWithoutValue, detail: M3UText.excerpt(name)))
                continue
            }
            index += 1
            let value: UnsafeRawBufferPointer
            if index < count, line[index] == UInt8(ascii: "\"") || line[index] == UInt8(ascii: "'") {
                let quote = line[index]
                let valueStart = index + 1
                var close = valueStart
                while close < count {
                    if line[close] == quote, closesValue(line, after: close) { break }
                    close += 1
                }
                if close < count {
                    value = M3UText.slice(line, valueStart, close)
                    index = close + 1
                    if quote == UInt8(ascii: "\""), containsAssignmentQuote(value) {
                        warnings.append(
                            M3UWarning(line: lineNumber, kind: .suspiciousQuote, detail: M3UText.excerpt(value)))
                    }
                } else {
                    // No closing quote: guess that the value ends at the next comma (in #EXTINF,
                    // where the title follows) or at the end of the line (in #EXTM3U).
                    var end = valueStart
                    if stopAtComma {
                        while end < count, line[end] != UInt8(ascii: ",") { end += 1 }
                    } else {
                        end = count
                    }
                    value = M3UText.slice(line, valueStart, end)
                    index = end
                    warnings.append(
                        M3UWarning(line: lineNumber, kind: .unterminatedQuote, detail: M3UText.excerpt(name)))
                }
            } else {
                let valueStart = index
                while index < count {
                    let byte = line[index]
                    if M3UText.isSpace(byte) || (stopAtComma && byte == UInt8(ascii: ",")) { break }
                    index += 1
                }
                value = M3UText.slice(line, valueStart, index)
            }
            if name.isEmpty {
                warnings.append(
                    M3UWarning(line: lineNumber, kind: .attributeWithoutValue, detail: M3UText.excerpt(value)))
            } else {
                body(name, value)
            }
        }
    }

    /// Whether the quote at `quoteIndex` ends the value: followed (after optional blanks) by the
    /// end of the line, a comma, or the next `name=`. Any other quote is part of the value, so
    /// `tvg-name="The "Best" Show"` keeps its inner quotes.
    private static func closesValue(_ line: UnsafeRawBufferPointer, after quoteIndex: Int) -> Bool {
        var index = quoteIndex + 1
        while index < line.count, M3UText.isSpace(line[index]) { index += 1 }
        guard index < line.count else { return true }
        if line[index] == UInt8(ascii: ",") { return true }
        let nameStart = index
        while index < line.count, isNameByte(line[index]) { index += 1 }
        return index > nameStart && index < line.count && line[index] == UInt8(ascii: "=")
    }

    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        M3UText.lowercased(byte) &- 0x61 < 26 || byte &- 0x30 < 10
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: ":")
    }

    /// `="` inside a value is the usual trace of a missing closing quote earlier on.
    private static func containsAssignmentQuote(_ value: UnsafeRawBufferPointer) -> Bool {
        guard value.count > 1 else { return false }
        for index in 0..<(value.count - 1)
        where value[index] == UInt8(ascii: "=") && value[index + 1] == UInt8(ascii: "\"") {
            return true
        }
        return false
    }

    /// Splits a comma-separated guide URL list, trimming each part and dropping empty ones.
    static func urlList(_ value: UnsafeRawBufferPointer) -> [String] {
        var urls: [String] = []
        var start = 0
        for index in 0...value.count where index == value.count || value[index] == UInt8(ascii: ",") {
            let part = M3UText.trimmed(M3UText.slice(value, start, index))
            if !part.isEmpty { urls.append(M3UText.string(part)) }
            start = index + 1
        }
        return urls
    }
}
