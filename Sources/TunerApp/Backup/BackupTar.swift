import Crypto
import Foundation

/// The container of a backup: a POSIX tar (ustar) of regular files, written and read here so a
/// backup opens with any `tar` and Tuner needs no archiver.
///
/// The reader trusts nothing in the file: every header's checksum, magic and type are checked,
/// sizes are parsed with checked arithmetic, and a file that ends early is an error that says so.
/// Names are only compared with the names the caller expects; they never become paths.
enum BackupTar {
    static let blockSize = 512

    /// Writes regular files into a tar file, one after another.
    struct Writer {
        let handle: FileHandle

        /// Adds `name` holding `data` (small files: the manifest, the secrets).
        func add(name: String, data: Data, modified: Date) throws {
            try handle.write(contentsOf: BackupTar.header(name: name, size: Int64(data.count), modified: modified))
            try handle.write(contentsOf: data)
            try pad(Int64(data.count))
        }

        /// Adds `name` with the bytes of the file at `path`, which must be `size` bytes long, and
        /// answers their SHA-256 (the caller compares it with what its manifest says).
        func add(name: String, contentsOf path: String, size: Int64, modified: Date) throws -> String {
            try handle.write(contentsOf: BackupTar.header(name: name, size: size, modified: modified))
            guard let source = FileHandle(forReadingAtPath: path) else {
                throw BackupError.unreadable(path)
            }
            defer { try? source.close() }
            var hasher = SHA256()
            var copied: Int64 = 0
            while let chunk = try source.read(upToCount: BackupTar.chunkSize), !chunk.isEmpty {
                hasher.update(data: chunk)
                try handle.write(contentsOf: chunk)
                copied += Int64(chunk.count)
            }
            guard copied == size else { throw BackupError.changedWhileCopied(path) }
            try pad(size)
            return BackupTar.hex(hasher.finalize())
        }

        /// The two empty blocks that end a tar.
        func finish() throws {
            try handle.write(contentsOf: Data(count: 2 * BackupTar.blockSize))
        }

        private func pad(_ size: Int64) throws {
            let remainder = Int(size % Int64(BackupTar.blockSize))
            if remainder != 0 { try handle.write(contentsOf: Data(count: BackupTar.blockSize - remainder)) }
        }
    }

    /// Reads the entries of a tar file in order.
    struct Reader {
        let handle: FileHandle
        let path: String

        /// The next entry's name and size, or nil at the end of the archive.
        mutating func next() throws -> (name: String, size: Int64)? {
            let block = try readExactly(BackupTar.blockSize, what: "an entry's header")
            if block.allSatisfy({ $0 == 0 }) { return nil }
            return try BackupTar.parseHeader(block)
        }

        /// Reads the current entry's `size` bytes, handing them to `sink` in chunks, then skips
        /// the padding to the next header.
        mutating func readBody(size: Int64, name: String, into sink: (Data) throws -> Void) throws {
            var left = size
            while left > 0 {
                let count = Int(min(left, Int64(BackupTar.chunkSize)))
                let chunk = try readExactly(count, what: name)
                try sink(chunk)
                left -= Int64(count)
            }
            let remainder = Int(size % Int64(BackupTar.blockSize))
            if remainder != 0 { _ = try readExactly(BackupTar.blockSize - remainder, what: name) }
        }

        private func readExactly(_ count: Int, what: String) throws -> Data {
            var data = Data()
            while data.count < count {
                guard let chunk = try handle.read(upToCount: count - data.count), !chunk.isEmpty else {
                    throw BackupError.invalid("\(path) is truncated: it ends inside \(what)")
                }
                data.append(chunk)
            }
            return data
        }
    }

    static let chunkSize = 4 << 20

    /// A ustar header for a regular file (mode 0600: a backup holds secrets). Sizes of 8 GiB and
    /// more, which 11 octal digits cannot hold, take the base-256 form GNU tar and bsdtar read.
    static func header(name: String, size: Int64, modified: Date) -> Data {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int64, at offset: Int, width: Int) {
            put(
                String(repeating: "0", count: max(0, width - 1 - String(value, radix: 8).count))
                    + String(value, radix: 8), at: offset, width: width - 1)
        }
        put(name, at: 0, width: 100)
        octal(0o600, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        if size < 0o77777777777 {
            octal(size, at: 124, width: 12)
        } else {
            block[124] = 0x80
            var value = UInt64(size)
            for index in stride(from: 135, to: 124, by: -1) {
                block[index] = UInt8(value & 0xff)
                value >>= 8
            }
        }
        octal(max(0, Int64(modified.timeIntervalSince1970)), at: 136, width: 12)
        block[156] = UInt8(ascii: "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        put("tuner", at: 265, width: 32)
        put("tuner", at: 297, width: 32)
        // The checksum: the header's bytes summed with its own field counted as spaces.
        for index in 148..<156 { block[index] = UInt8(ascii: " ") }
        let sum = block.reduce(0) { $0 + Int($1) }
        let digits = String(sum, radix: 8)
        put(String(repeating: "0", count: 6 - digits.count) + digits, at: 148, width: 6)
        block[154] = 0
        block[155] = UInt8(ascii: " ")
        return Data(block)
    }

    /// The name and size of a header block, or an error naming what is wrong with it.
    static func parseHeader(_ block: Data) throws -> (name: String, size: Int64) {
        let bytes = [UInt8](block)
        guard bytes.count == blockSize else { throw BackupError.invalid("a tar header is not 512 bytes") }
        var sum = 0
        for (index, byte) in bytes.enumerated() { sum += (148..<156).contains(index) ? 32 : Int(byte) }
        guard let stored = octalValue(bytes[148..<156]), stored == Int64(sum) else {
            throw BackupError.invalid("a tar header's checksum does not match: the file is damaged")
        }
        guard Array(bytes[257..<262]) == Array("ustar".utf8) else {
            throw BackupError.invalid("an entry is not in the ustar format Tuner writes")
        }
        guard bytes[156] == UInt8(ascii: "0") || bytes[156] == 0 else {
            throw BackupError.invalid("an entry is not a regular file (type \(bytes[156]))")
        }
        let nameBytes = bytes[0..<100].prefix { $0 != 0 }
        guard let name = String(bytes: nameBytes, encoding: .utf8), !name.isEmpty else {
            throw BackupError.invalid("an entry's name is not UTF-8")
        }
        let size: Int64
        if bytes[124] & 0x80 != 0 {
            var value: Int64 = 0
            for byte in bytes[125..<136] {
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 256)
                guard !overflow else { throw BackupError.invalid("the size of \(name) is out of range") }
                value = shifted | Int64(byte)
            }
            guard bytes[124] == 0x80 else { throw BackupError.invalid("the size of \(name) is out of range") }
            size = value
        } else {
            guard let value = octalValue(bytes[124..<136]) else {
                throw BackupError.invalid("the size of \(name) is not a number")
            }
            size = value
        }
        return (name, size)
    }

    /// An octal field: digits, optionally led by spaces and ended by a space or NUL.
    static func octalValue(_ field: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        var ended = false
        for byte in field {
            if byte == 0 || byte == 32 {
                if digits > 0 { ended = true }
                continue
            }
            guard !ended, (48...55).contains(byte) else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 8)
            guard !overflow else { return nil }
            value = shifted + Int64(byte - 48)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
