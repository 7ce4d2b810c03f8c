import CZlib
import Foundation

/// Inflates `.gz` playlists and guides into a plain file before an import, outside any database
/// transaction.
///
/// Every member is inflated in turn, as `gzip -d` does (guides are often concatenations). A file
/// that ends inside a member is truncated and refused; bytes after the last member that do not
/// start another one are refused too (zero padding excepted, as gzip allows), so a damaged file
/// never replaces a good catalog. The output is capped, so a small bomb cannot fill the disk.
enum GzipFile {
    /// Whether the file starts with the gzip magic bytes; throws when it is no regular file
    /// (``LocalSourceFile``) or cannot be opened.
    static func isGzip(path: String) throws -> Bool {
        let handle = try LocalSourceFile.open(path)
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 2), head.count == 2 else { return false }
        return head[head.startIndex] == 0x1F && head[head.startIndex + 1] == 0x8B
    }

    /// Inflates `path` into a new file `output`; returns the bytes written.
    static func inflate(path: String, to output: String, limit: Int64, chunkSize: Int = 1 << 20) throws -> Int64 {
        let input = try LocalSourceFile.open(path)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: output, contents: nil),
            let writer = FileHandle(forWritingAtPath: output)
        else {
            throw CatalogError.fetchFailed("cannot create \(output)")
        }
        defer { try? writer.close() }

        var stream = z_stream()
        // 15 + 16: a gzip wrapper, the largest window.
        guard CZlib_inflateInit2(&stream, 15 + 16) == Z_OK else {
            throw CatalogError.fetchFailed("cannot start gzip decompression")
        }
        defer { inflateEnd(&stream) }

        var outputBuffer = [UInt8](repeating: 0, count: chunkSize)
        var written: Int64 = 0
        var insideMember = true
        var members = 0
        var consumedTotal: Int64 = 0
        while let data = try input.read(upToCount: chunkSize), !data.isEmpty {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var next = raw.bindMemory(to: UInt8.self).baseAddress!
                var left = raw.count
                while left > 0 {
                    if !insideMember {
                        // After a member: zero padding is skipped; anything else must be a new member.
                        if next.pointee == 0 {
                            next += 1
                            left -= 1
                            continue
                        }
                        guard next.pointee == 0x1F else {
                            throw CatalogError.fetchFailed(
                                "the gzip file has \(left) unexpected bytes after member \(members); it is damaged")
                        }
                        guard inflateReset(&stream) == Z_OK else {
                            throw CatalogError.fetchFailed("cannot restart gzip decompression")
                        }
                        insideMember = true
                    }
                    stream.next_in = UnsafeMutablePointer(mutating: next)
                    stream.avail_in = UInt32(left)
                    let produced: Int = try outputBuffer.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(out.count)
                        let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                        let produced = out.count - Int(stream.avail_out)
                        switch status {
                        case Z_STREAM_END:
                            insideMember = false
                            members += 1
                        case Z_OK, Z_BUF_ERROR:
                            break
                        default:
                            let offset = consumedTotal + Int64(left - Int(stream.avail_in))
                            throw CatalogError.fetchFailed(
                                "the gzip data is damaged near byte \(offset) (zlib status \(status))")
                        }
                        return produced
                    }
                    let consumed = left - Int(stream.avail_in)
                    if consumed == 0 && produced == 0 && insideMember {
                        // zlib made no progress with input and room: it cannot go on with this data.
                        throw CatalogError.fetchFailed("the gzip data is damaged after byte \(consumedTotal)")
                    }
                    next += consumed
                    left -= consumed
                    consumedTotal += Int64(consumed)
                    if produced > 0 {
                        let (sum, overflow) = written.addingReportingOverflow(Int64(produced))
                        guard !overflow, sum <= limit else {
                            throw CatalogError.fetchFailed(
                                "the gzip file inflates to more than the limit of \(limit) bytes")
                        }
                        written = sum
                        try writer.write(contentsOf: outputBuffer[0..<produced])
                    }
                }
            }
        }
        // Output still held by zlib for a member whose input all arrived.
        while insideMember {
            let produced: Int = outputBuffer.withUnsafeMutableBufferPointer { out in
                stream.next_in = nil
                stream.avail_in = 0
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                if status == Z_STREAM_END {
                    insideMember = false
                    members += 1
                }
                return out.count - Int(stream.avail_out)
            }
            if produced == 0 { break }
            let (sum, overflow) = written.addingReportingOverflow(Int64(produced))
            guard !overflow, sum <= limit else {
                throw CatalogError.fetchFailed("the gzip file inflates to more than the limit of \(limit) bytes")
            }
            written = sum
            try writer.write(contentsOf: outputBuffer[0..<produced])
        }
        guard !insideMember else {
            throw CatalogError.fetchFailed(
                "the gzip file ends inside member \(members + 1) after \(consumedTotal) bytes: it is truncated")
        }
        return written
    }
}
