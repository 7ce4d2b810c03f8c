import NIOCore

/// Rows in the text format of PostgreSQL's `COPY … FROM STDIN`: columns separated by tabs, rows
/// ended by a newline, `\N` for NULL, and backslash, tab, newline and carriage return escaped.
///
/// Written by hand rather than bound as parameters because a bulk import sends hundreds of
/// thousands of rows: COPY takes them as one stream, without a statement per row.
struct PostgresCopyText {
    private(set) var buffer: ByteBuffer
    private var atRowStart = true

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// The bytes written so far, leaving this empty for the next batch.
    mutating func take(reserving capacity: Int) -> ByteBuffer {
        defer { buffer = ByteBufferAllocator().buffer(capacity: capacity) }
        return buffer
    }

    mutating func text(_ value: String?) {
        separate()
        guard var value else { return writeNull() }
        value.withUTF8 { bytes in
            // Most values need no escaping: copy them whole.
            guard bytes.contains(where: Self.needsEscape) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                // PostgreSQL's text cannot hold NUL (SQLite's can): U+FFFD, as the item import does.
                case 0: buffer.writeBytes([0xEF, 0xBF, 0xBD])
                default: buffer.writeInteger(byte)
                }
            }
        }
    }

    mutating func integer(_ value: Int64?) {
        separate()
        guard let value else { return writeNull() }
        // Digits written in place: String(value) would allocate for every number of every row.
        if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var count = 0
        var rest = magnitude
        repeat {
            count += 1
            rest /= 10
        } while rest > 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            var index = count
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while index > 0
            return count
        }
    }

    mutating func integer(_ value: Int?) {
        integer(value.map(Int64.init))
    }

    /// Ends the current row.
    mutating func endRow() {
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

    private mutating func writeNull() {
        buffer.writeStaticString("\\N")
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r") || byte == 0
    }
}
