import NIOCore

/// Rows in `COPY … FROM STDIN`'s text format: tab between values, a newline after each row, `\N`
/// for NULL, backslash escapes for the characters that would break the format, `\\x` and hex
/// for bytes (https://www.postgresql.org/docs/15/sql-copy.html, "Text Format").
enum PostgresCopyText {
    static func append(_ rows: [[CopyValue]], to buffer: inout ByteBuffer) {
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                append(value, to: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
    }

    private static func append(_ value: CopyValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null:
            buffer.writeStaticString("\\N")
        case .integer(let number):
            buffer.writeString(String(number))
        case .real(let number):
            if let whole = CopyValue.wholeNumber(number) {
                // "86400", not "86400.0": a BIGINT column takes it as well as a DOUBLE PRECISION one.
                buffer.writeString(String(whole))
            } else if number.isNaN {
                buffer.writeStaticString("NaN")
            } else if number.isInfinite {
                buffer.writeStaticString(number < 0 ? "-Infinity" : "Infinity")
            } else {
                // Swift prints the shortest text that reads back as the same double.
                buffer.writeString(String(number))
            }
        case .text(let text):
            var text = text
            text.withUTF8 { utf8 in
                var start = 0
                for (index, byte) in utf8.enumerated() {
                    let escape: UInt8? =
                        switch byte {
                        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
                        case UInt8(ascii: "\t"): UInt8(ascii: "t")
                        case UInt8(ascii: "\n"): UInt8(ascii: "n")
                        case UInt8(ascii: "\r"): UInt8(ascii: "r")
                        default: nil
                        }
                    guard let escape else { continue }
                    buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start..<index]))
                    buffer.writeInteger(UInt8(ascii: "\\"))
                    buffer.writeInteger(escape)
                    start = index + 1
                }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start..<utf8.count]))
            }
        case .blob(let bytes):
            // bytea's hex input is \x…; COPY itself takes the backslash escaped.
            buffer.writeStaticString("\\\\x")
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            for byte in bytes {
                buffer.writeInteger(digits[Int(byte >> 4)])
                buffer.writeInteger(digits[Int(byte & 0x0F)])
            }
        }
    }
}
