import Crypto

/// One stored value as both engines hold it: Tuner's tables use integers, doubles, text, bytes
/// and NULL, nothing else (booleans are 0/1 integers, times are unix seconds as doubles).
enum CopyValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The integer a double stands for when it has no fraction and fits Int64; nil otherwise.
    ///
    /// SQLite compares 86400 and 86400.0 as equal and stores a REAL column's whole numbers as
    /// integers on disk, so the checksum treats them as one value too: a column that is REAL in one
    /// engine and BIGINT in the other holds the same data when its numbers are whole.
    static func wholeNumber(_ value: Double) -> Int64? {
        guard value.isFinite, value.rounded(.towardZero) == value,
            value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }
}

/// A table's rows summed up: how many, and the SHA-256 of them in key order (hexadecimal).
struct TableDigest: Sendable, Equatable {
    var rows: Int
    var checksum: String
}

/// The running SHA-256 of a table's rows in primary-key order, each value in one canonical form
/// whichever engine it came from, and how many rows went in.
struct RowDigest {
    private var hasher = SHA256()
    private var scratch: [UInt8] = []
    private(set) var rows = 0

    /// Adds rows (each an array of values in the plan's column order).
    mutating func add(_ batch: [[CopyValue]]) {
        scratch.removeAll(keepingCapacity: true)
        for row in batch {
            // A row marker keeps ("ab", "c") and ("a", "bc") apart even without the lengths.
            scratch.append(0xFF)
            for value in row { Self.append(value, to: &scratch) }
        }
        scratch.withUnsafeBufferPointer { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        rows += batch.count
    }

    /// The count and the digest in lower-case hexadecimal.
    func finish() -> TableDigest {
        let checksum = hasher.finalize().map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        return TableDigest(rows: rows, checksum: checksum)
    }

    /// Tag, then the value: 8 big-endian bytes for numbers, a length and the bytes for text and blobs.
    private static func append(_ value: CopyValue, to bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(0)
        case .integer(let number):
            bytes.append(1)
            appendBigEndian(UInt64(bitPattern: number), to: &bytes)
        case .real(let number):
            if let whole = CopyValue.wholeNumber(number) {
                bytes.append(1)
                appendBigEndian(UInt64(bitPattern: whole), to: &bytes)
            } else {
                bytes.append(2)
                // Every NaN is one value here, as both engines print them alike.
                appendBigEndian(number.isNaN ? Double.nan.bitPattern : number.bitPattern, to: &bytes)
            }
        case .text(let text):
            bytes.append(3)
            var text = text
            text.withUTF8 { utf8 in
                appendBigEndian(UInt64(utf8.count), to: &bytes)
                bytes.append(contentsOf: utf8)
            }
        case .blob(let blob):
            bytes.append(4)
            appendBigEndian(UInt64(blob.count), to: &bytes)
            bytes.append(contentsOf: blob)
        }
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
