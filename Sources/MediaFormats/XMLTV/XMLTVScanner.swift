import Foundation

/// Where one attribute's name and value lie inside a tag's bytes.
struct XMLTVAttributeSpan {
    var nameStart: Int
    var nameEnd: Int
    var valueStart: Int
    var valueEnd: Int
}

/// The attributes of one start tag, as byte ranges into the tag (values still entity-encoded).
struct XMLTVAttributeList {
    let bytes: UnsafeRawBufferPointer
    let spans: UnsafeBufferPointer<XMLTVAttributeSpan>

    /// The raw value of the attribute called `name` (case-sensitive, as XML is).
    func value(_ name: StaticString) -> UnsafeRawBufferPointer? {
        let count = name.utf8CodeUnitCount
        for span in spans where span.nameEnd - span.nameStart == count {
            if memcmp(bytes.baseAddress! + span.nameStart, name.utf8Start, count) == 0 {
                return UnsafeRawBufferPointer(rebasing: bytes[span.valueStart..<span.valueEnd])
            }
        }
        return nil
    }
}

/// Receives the tokens of an XML document from ``XMLTVScanner``.
protocol XMLTVTokenSink {
    mutating func startElement(
        _ name: UnsafeRawBufferPointer, _ attributes: XMLTVAttributeList, selfClosing: Bool, offset: Int)
    mutating func endElement(_ name: UnsafeRawBufferPointer, offset: Int)
    /// Character data still entity-encoded; one text node may arrive in several pieces, but
    /// never split inside an entity reference.
    mutating func characters(_ raw: UnsafeRawBufferPointer)
    /// The contents of a CDATA section (no entities to decode).
    mutating func cdata(_ raw: UnsafeRawBufferPointer)
    /// The `<?xml …?>` declaration's pseudo-attributes.
    mutating func declaration(_ attributes: XMLTVAttributeList)
    mutating func warn(_ kind: XMLTVWarning.Kind, offset: Int, detail: String)
}

/// A small streaming XML tokenizer over UTF-8 (or ASCII-compatible) bytes.
///
/// Why not `XMLParser`: on Linux it is several times slower than this once the delegate has
/// bridged every name, attribute dictionary and string, and it stops at the first
/// well-formedness error, whereas real guides contain stray `&`, unclosed tags and truncated
/// downloads that are better skipped than fatal. This scanner handles what XMLTV files use:
/// elements, attributes in either quote, text, entities, CDATA, comments, processing
/// instructions and DOCTYPE (with an internal subset, skipped; its entities are not expanded).
///
/// It consumes whole tokens from the front of a buffer and reports how many bytes it used; the
/// caller keeps the rest (an incomplete token) and calls again with more bytes appended.
struct XMLTVScanner {
    var maxTokenLength: Int

    /// Progress inside the incomplete token at the start of the next buffer, so a long token
    /// fed in small chunks is not rescanned from its start each time.
    private var resumeOffset = 0
    private var resumeQuote: UInt8 = 0
    private var resumeDepth = 0
    /// An over-long token is being dropped up to its closing `>`.
    private var skippingToTagEnd = false
    private var spans: [XMLTVAttributeSpan] = []

    init(maxTokenLength: Int) {
        self.maxTokenLength = maxTokenLength
        spans.reserveCapacity(16)
    }

    /// Scans the tokens in `bytes` and returns how many bytes were consumed.
    ///
    /// - Parameters:
    ///   - baseOffset: the input offset of `bytes[0]`, for warnings.
    ///   - final: no more bytes will come, so an incomplete token is reported and dropped.
    mutating func scan<Sink: XMLTVTokenSink>(
        _ bytes: UnsafeRawBufferPointer,
        baseOffset: Int,
        final: Bool,
        into sink: inout Sink
    ) -> Int {
        let count = bytes.count
        var position = 0

        if skippingToTagEnd {
            guard let close = Self.find(bytes, UInt8(ascii: ">"), from: 0) else { return count }
            skippingToTagEnd = false
            position = close + 1
        }

        while position < count {
            let start = position
            if bytes[start] != UInt8(ascii: "<") {
                if let lessThan = Self.find(bytes, UInt8(ascii: "<"), from: start) {
                    sink.characters(UnsafeRawBufferPointer(rebasing: bytes[start..<lessThan]))
                    position = lessThan
                    continue
                }
                // The text runs to the end of what we have: hand it over now (text nodes can be
                // long) except for a trailing entity reference that may be cut in half.
                var safeEnd = count
                if !final {
                    var probe = count - 1
                    while probe >= start, probe >= count - 12 {
                        if bytes[probe] == UInt8(ascii: ";") { break }
                        if bytes[probe] == UInt8(ascii: "&") {
                            safeEnd = probe
                            break
                        }
                        probe -= 1
                    }
                }
                if safeEnd > start {
                    sink.characters(UnsafeRawBufferPointer(rebasing: bytes[start..<safeEnd]))
                }
                position = safeEnd
                if final, position < count {
                    sink.characters(UnsafeRawBufferPointer(rebasing: bytes[position..<count]))
                    position = count
                }
                return position
            }

            guard let end = tokenEnd(bytes, start: start) else {
                // Incomplete token.
                let length = count - start
                if final {
                    sink.warn(.truncatedDocument, offset: baseOffset + start, detail: Self.excerpt(bytes, start, count))
                    resetResume()
                    return count
                }
                if length > maxTokenLength {
                    sink.warn(.tokenTooLong, offset: baseOffset + start, detail: Self.excerpt(bytes, start, count))
                    resetResume()
                    skippingToTagEnd = true
                    return count
                }
                return start
            }
            resetResume()
            position = end + 1
            dispatch(bytes, start: start, end: end, baseOffset: baseOffset, into: &sink)
        }
        return position
    }

    private mutating func resetResume() {
        resumeOffset = 0
        resumeQuote = 0
        resumeDepth = 0
    }

    /// The index of the `>` that ends the markup starting at `start`, or `nil` when it has not
    /// arrived yet (then the resume state records how far the search got).
    private mutating func tokenEnd(_ bytes: UnsafeRawBufferPointer, start: Int) -> Int? {
        let count = bytes.count
        guard start + 1 < count else { return nil }
        let second = bytes[start + 1]
        if second == UInt8(ascii: "!") {
            if Self.hasPrefix(bytes, at: start, "<!--") {
                return findSequenceEnd(bytes, start: start, minimum: start + 4, "-->")
            }
            if Self.hasPrefix(bytes, at: start, "<![CDATA[") {
                return findSequenceEnd(bytes, start: start, minimum: start + 9, "]]>")
            }
            // Might still become a comment or CDATA once more bytes arrive.
            if count - start < 9,
                Self.couldBePrefix(bytes, at: start, "<![CDATA[") || Self.couldBePrefix(bytes, at: start, "<!--")
            {
                return nil
            }
            return findDeclarationEnd(bytes, start: start)
        }
        if second == UInt8(ascii: "?") {
            return findSequenceEnd(bytes, start: start, minimum: start + 2, "?>")
        }
        return findTagEnd(bytes, start: start)
    }

    /// Finds `terminator` (ending in `>`) at or after `minimum`; returns the index of its `>`.
    private mutating func findSequenceEnd(
        _ bytes: UnsafeRawBufferPointer, start: Int, minimum: Int, _ terminator: StaticString
    ) -> Int? {
        let length = terminator.utf8CodeUnitCount
        var from = max(start + resumeOffset, minimum + length - 1)
        while let close = Self.find(bytes, UInt8(ascii: ">"), from: from) {
            if close - (length - 1) >= minimum,
                memcmp(bytes.baseAddress! + close - (length - 1), terminator.utf8Start, length) == 0
            {
                return close
            }
            from = close + 1
        }
        resumeOffset = max(0, bytes.count - start - (length - 1))
        return nil
    }

    /// A start or end tag: the first `>` outside a quoted attribute value.
    private mutating func findTagEnd(_ bytes: UnsafeRawBufferPointer, start: Int) -> Int? {
        var index = start + max(resumeOffset, 1)
        var quote = resumeQuote
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: ">") {
                return index
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            }
            index += 1
        }
        resumeOffset = count - start
        resumeQuote = quote
        return nil
    }

    /// `<!DOCTYPE …>` and other declarations: the first `>` outside quotes and `[…]`.
    private mutating func findDeclarationEnd(_ bytes: UnsafeRawBufferPointer, start: Int) -> Int? {
        var index = start + max(resumeOffset, 2)
        var quote = resumeQuote
        var depth = resumeDepth
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                return index
            }
            index += 1
        }
        resumeOffset = count - start
        resumeQuote = quote
        resumeDepth = depth
        return nil
    }

    /// Reports the complete markup `bytes[start...end]` (`end` is its `>`).
    private mutating func dispatch<Sink: XMLTVTokenSink>(
        _ bytes: UnsafeRawBufferPointer,
        start: Int,
        end: Int,
        baseOffset: Int,
        into sink: inout Sink
    ) {
        let second = bytes[start + 1]
        switch second {
        case UInt8(ascii: "/"):
            var nameEnd = start + 2
            while nameEnd < end, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
            sink.endElement(UnsafeRawBufferPointer(rebasing: bytes[(start + 2)..<nameEnd]), offset: baseOffset + start)
        case UInt8(ascii: "!"):
            if Self.hasPrefix(bytes, at: start, "<![CDATA[") {
                sink.cdata(UnsafeRawBufferPointer(rebasing: bytes[(start + 9)..<(end - 2)]))
            }
        // Comments and DOCTYPE carry nothing a guide needs.
        case UInt8(ascii: "?"):
            if Self.hasPrefix(bytes, at: start, "<?xml"), end - start > 6, Self.isSpace(bytes[start + 5]) {
                parseAttributes(bytes, from: start + 5, to: end - 1)
                spans.withUnsafeBufferPointer { buffer in
                    sink.declaration(XMLTVAttributeList(bytes: bytes, spans: buffer))
                }
            }
        default:
            var contentEnd = end
            let selfClosing = bytes[end - 1] == UInt8(ascii: "/")
            if selfClosing { contentEnd -= 1 }
            var nameEnd = start + 1
            while nameEnd < contentEnd, !Self.isSpace(bytes[nameEnd]), bytes[nameEnd] != UInt8(ascii: "/") {
                nameEnd += 1
            }
            guard nameEnd > start + 1 else {
                sink.warn(.malformedMarkup, offset: baseOffset + start, detail: Self.excerpt(bytes, start, end + 1))
                return
            }
            parseAttributes(bytes, from: nameEnd, to: contentEnd)
            spans.withUnsafeBufferPointer { buffer in
                sink.startElement(
                    UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<nameEnd]),
                    XMLTVAttributeList(bytes: bytes, spans: buffer),
                    selfClosing: selfClosing,
                    offset: baseOffset + start
                )
            }
        }
    }

    /// Fills `spans` with the `name="value"` pairs in `bytes[from..<to]`. Lenient: unquoted
    /// values and valueless attributes are accepted rather than rejected.
    private mutating func parseAttributes(_ bytes: UnsafeRawBufferPointer, from: Int, to end: Int) {
        spans.removeAll(keepingCapacity: true)
        var index = from
        while index < end {
            while index < end, Self.isSpace(bytes[index]) { index += 1 }
            guard index < end else { break }
            let nameStart = index
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "=") || Self.isSpace(byte) || byte == UInt8(ascii: "/") { break }
                index += 1
            }
            let nameEnd = index
            while index < end, Self.isSpace(bytes[index]) { index += 1 }
            var valueStart = index
            var valueEnd = index
            if index < end, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < end, Self.isSpace(bytes[index]) { index += 1 }
                if index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    valueStart = index + 1
                    valueEnd = valueStart
                    while valueEnd < end, bytes[valueEnd] != quote { valueEnd += 1 }
                    index = min(valueEnd + 1, end)
                } else {
                    valueStart = index
                    while index < end, !Self.isSpace(bytes[index]) { index += 1 }
                    valueEnd = index
                }
            }
            if nameEnd > nameStart {
                spans.append(
                    XMLTVAttributeSpan(
                        nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd))
            } else if index == nameStart {
                index += 1  // a stray character such as `/`: step over it
            }
        }
    }

    // MARK: - Byte helpers

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    @inline(__always)
    static func find(_ bytes: UnsafeRawBufferPointer, _ byte: UInt8, from: Int) -> Int? {
        guard from < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + from, Int32(byte), bytes.count - from) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, at start: Int, _ prefix: StaticString) -> Bool {
        let length = prefix.utf8CodeUnitCount
        guard start + length <= bytes.count else { return false }
        return memcmp(bytes.baseAddress! + start, prefix.utf8Start, length) == 0
    }

    /// Whether the bytes from `start` to the end are a (possibly partial) beginning of `prefix`.
    static func couldBePrefix(_ bytes: UnsafeRawBufferPointer, at start: Int, _ prefix: StaticString) -> Bool {
        let length = min(prefix.utf8CodeUnitCount, bytes.count - start)
        return memcmp(bytes.baseAddress! + start, prefix.utf8Start, length) == 0
    }

    static func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    static func excerpt(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> String {
        var stop = min(end, start + 80)
        while stop > start, stop < end, bytes[stop] & 0xC0 == 0x80 { stop -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
    }
}
