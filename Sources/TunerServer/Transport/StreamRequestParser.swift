import MediaFormats

/// Reads, straight off a connection's bytes, the one request head ``StreamFrontHandler`` answers
/// before NIO's HTTP/1 decoder: `GET /stream/…` over HTTP/1.1 with no body and no upgrade.
///
/// NIO's decoder (llhttp, then a header list of strings) was the largest part of a warm answer's
/// CPU left in user space. This reads only that shape, and more strictly than llhttp does: a
/// request line of single spaces, the target in ``StreamRequestBytes/isPlainPathByte(_:)``, field
/// names of `tchar`s right before their colon, values of visible ASCII, spaces and tabs with no
/// trailing white space, every line ending in CRLF, at most ``maximumHeadLength`` bytes and
/// ``maximumFields`` fields. Whatever it does not take (`other`) goes to NIO's decoder untouched,
/// so a head both could read differently never reaches the fast path, and the router answers or
/// refuses it as before. What it reads of a head it takes is what llhttp reads of it: a test
/// decodes every head it takes, and mutations of them, with NIO's decoder and compares.
enum StreamRequestParser {
    /// What the bytes at hand hold.
    enum Outcome {
        /// A whole head of the shape the fast path answers, `length` bytes long (the request has
        /// no body: the next request starts right after it).
        case request(StreamRequestHead, length: Int)
        /// The start of such a head, and nothing against it so far: wait for more bytes.
        case incomplete
        /// Not such a head, or not one this parser is sure of: NIO's decoder reads it.
        case other
    }

    /// A longer head goes to NIO's decoder (a player's segment request is a few hundred bytes).
    static let maximumHeadLength = 8192
    /// More fields than this go to NIO's decoder.
    static let maximumFields = 64

    /// Reads the head at the start of `bytes`.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var reader = Reader(bytes: bytes)
        return reader.head()
    }

    /// A cursor over the bytes; every read past the end is `incomplete` (or `other` once the bytes
    /// at hand are already as long as a head may be).
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        /// `.incomplete` while a longer head is still allowed, else `.other`.
        var ranOut: Outcome {
            bytes.count >= StreamRequestParser.maximumHeadLength ? .other : .incomplete
        }

        /// Reads `expected` at the cursor: true if all there, false if a byte differs, nil if the
        /// bytes end first.
        mutating func take(_ expected: StaticString) -> Bool? {
            expected.withUTF8Buffer { wanted in
                for byte in wanted {
                    guard index < bytes.count else { return nil }
                    guard bytes[index] == byte else { return false }
                    index += 1
                }
                return true
            }
        }

        mutating func head() -> Outcome {
            // The request line: `GET /stream/<plain path> HTTP/1.1` CRLF.
            switch take("GET /stream/") {
            case nil: return ranOut
            case false?: return .other
            case true?: break
            }
            let targetStart = 4
            while true {
                guard index < bytes.count, index < StreamRequestParser.maximumHeadLength else { return ranOut }
                let byte = bytes[index]
                if byte == UInt8(ascii: " ") { break }
                guard StreamRequestBytes.isPlainPathByte(byte) else { return .other }
                index += 1
            }
            let target = string(targetStart..<index)
            switch take(" HTTP/1.1\r\n") {
            case nil: return ranOut
            case false?: return .other
            case true?: break
            }

            var request = StreamRequestHead(target: target)
            var hosts = 0
            var ranges = 0
            var ifRanges = 0
            var fields = 0
            while true {
                guard index < bytes.count, index < StreamRequestParser.maximumHeadLength else { return ranOut }
                if bytes[index] == UInt8(ascii: "\r") {
                    // The empty line that ends the head.
                    guard index + 1 < bytes.count else { return ranOut }
                    guard bytes[index + 1] == UInt8(ascii: "\n") else { return .other }
                    index += 2
                    break
                }
                fields += 1
                guard fields <= StreamRequestParser.maximumFields else { return .other }

                // `name:` — a line that starts with white space (an obsolete folded line) has no name.
                let nameStart = index
                while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
                guard index < bytes.count else { return ranOut }
                guard index > nameStart, bytes[index] == UInt8(ascii: ":") else { return .other }
                let field = nameStart..<index
                index += 1
                while index < bytes.count, Self.isWhiteSpace(bytes[index]) { index += 1 }
                let valueStart = index
                while index < bytes.count, Self.isValueByte(bytes[index]) { index += 1 }
                guard index + 1 < bytes.count else { return ranOut }
                guard bytes[index] == UInt8(ascii: "\r"), bytes[index + 1] == UInt8(ascii: "\n") else { return .other }
                let value = valueStart..<index
                // Trailing white space: llhttp's handling of it has changed between versions.
                if let last = value.last, Self.isWhiteSpace(bytes[last]) { return .other }
                index += 2

                if name(field, is: "host") {
                    hosts += 1
                    request.host = string(value)
                } else if name(field, is: "range") {
                    ranges += 1
                    request.range = string(value)
                } else if name(field, is: "if-range") {
                    ifRanges += 1
                    request.ifRange = string(value)
                } else if name(field, is: "connection") {
                    // Hummingbird answers a request that asks to close (and closes after it).
                    guard name(value, is: "keep-alive") else { return .other }
                } else if name(field, is: "content-length") || name(field, is: "transfer-encoding")
                    || name(field, is: "expect") || name(field, is: "upgrade")
                {
                    // A body, or a request Hummingbird's handlers must see.
                    return .other
                }
            }
            // Each field the answer reads given once, so it reads the same through swift-http-types;
            // and a `Host` (an HTTP/1.1 request without one gets 400 from BadRequestAnswerer).
            guard hosts == 1, ranges <= 1, ifRanges <= 1, index <= StreamRequestParser.maximumHeadLength else {
                return .other
            }
            return .request(request, length: index)
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        /// Whether the bytes in `range` are `lowercase` in any case (ASCII).
        func name(_ range: Range<Int>, is lowercase: StaticString) -> Bool {
            StreamRequestBytes.name(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]), is: lowercase)
        }

        static func isWhiteSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }

        /// Visible ASCII, space and tab: no control bytes, no DEL, nothing above ASCII.
        static func isValueByte(_ byte: UInt8) -> Bool {
            (0x21...0x7E).contains(byte) || isWhiteSpace(byte)
        }
    }
}
