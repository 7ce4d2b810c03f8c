import NIOCore

/// Rows in the text format of PostgreSQL's `COPY … FROM STDIN` (PostgreSQL's manual, `COPY`,
/// "Text Format"): values separated by tabs, rows ended by a newline, `\N` for NULL, and
/// backslash, tab, newline and carriage return escaped.
///
/// Written by hand rather than bound as parameters because an import or a migration sends
/// hundreds of thousands of rows: `COPY` takes them as one stream, without a statement per row.
/// PostgreSQL's text cannot hold NUL (SQLite's can): it is written as U+FFFD, so a value that held
/// one arrives changed (a migration's checksums say so).
public struct PostgresCopyText: Sendable {
    /// The rows written so far.
    public private(set) var buffer: ByteBuffer
    private var atRowStart = true

    public init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// The bytes written so far, leaving this empty (with `capacity` bytes ready) for the next batch.
    public mutating func take(reserving capacity: Int) -> ByteBuffer {
        defer { buffer = ByteBufferAllocator().buffer(capacity: capacity) }
        return buffer
    }

    public mutating func null() {
        separate()
        buffer.writeStaticString("\\N")
    }

    public mutating func text(_ value: String?) {
        guard var value else { return null() }
        value.withUTF8 { text(utf8: $0) }
    }

    /// A text given as its UTF-8 bytes; nil for NULL.
    public mutating func text(utf8 bytes: UnsafeBufferPointer<UInt8>?) {
        guard let bytes else { return null() }
        separate()
        // Most values need no escaping: copied a run at a time, between the bytes that do.
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            // Only these bytes need escaping; UTF-8 never uses them inside a multi-byte character.
            guard byte <= UInt8(ascii: "\\"), byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "\\"): replacement = "\\\\"
            case UInt8(ascii: "\t"): replacement = "\\t"
            case UInt8(ascii: "\n"): replacement = "\\n"
            case UInt8(ascii: "\r"): replacement = "\\r"
            case 0: replacement = "\u{FFFD}"
            default: continue
            }
            buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            buffer.writeStaticString(replacement)
            runStart = index + 1
        }
        buffer.writeBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    public mutating func integer(_ value: Int64?) {
        guard let value else { return null() }
        separate()
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        // Digits written in place, from the end: String(value) would allocate for every number of
        // every row. Twenty digits hold any Int64.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: digits[index...]))
        }
    }

    public mutating func integer(_ value: Int?) {
        integer(value.map(Int64.init))
    }

    /// A double: a whole one as an integer ("86400", which a BIGINT column takes as well as a
    /// DOUBLE PRECISION one), NaN and the infinities by PostgreSQL's names, any other as the
    /// shortest text that reads back as the same double.
    public mutating func real(_ value: Double?) {
        guard let value else { return null() }
        if value.isFinite, value.rounded() == value, let whole = Int64(exactly: value) {
            return integer(whole)
        }
        separate()
        if value.isNaN {
            buffer.writeStaticString("NaN")
        } else if value.isInfinite {
            buffer.writeStaticString(value < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(String(value))
        }
    }

    /// Bytes for a `bytea` column, in its hex input form (`\x…`, the backslash escaped for COPY).
    public mutating func bytea(_ value: [UInt8]?) {
        guard let value else { return null() }
        separate()
        buffer.writeStaticString("\\\\x")
        let digits: StaticString = "0123456789abcdef"
        for byte in value {
            buffer.writeInteger(digits.utf8Start[Int(byte >> 4)])
            buffer.writeInteger(digits.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// A value that `write` appends already in COPY's text form (nothing in it needs escaping).
    public mutating func preformatted<Result>(_ write: (inout ByteBuffer) -> Result) -> Result {
        separate()
        return write(&buffer)
    }

    /// Ends the current row.
    public mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        atRowStart = true
    }

    private mutating func separate() {
        if atRowStart {
            atRowStart = false
        } else {
            buffer.writeInteger(UInt8(ascii: "\t"))
        }
    }
}
