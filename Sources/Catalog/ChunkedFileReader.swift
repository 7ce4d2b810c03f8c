import CompressNIO
import Foundation
import NIOCore

/// Reads a file in fixed-size chunks, gunzipping it on the fly when it starts with the gzip
/// magic bytes, so playlists and guides of any size are parsed in constant memory and `.gz`
/// guides need no temporary copy.
struct ChunkedFileReader {
    var chunkSize = 1 << 20

    /// Calls `body` with each chunk of (decompressed) content; returns the bytes read from disk.
    @discardableResult
    func read(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CatalogError.fetchFailed("cannot open \(path)")
        }
        defer { try? handle.close() }
        var total: Int64 = 0
        var decompressor: NIODecompressor?
        while let data = try handle.read(upToCount: chunkSize), !data.isEmpty {
            if total == 0, data.count >= 2, data[data.startIndex] == 0x1F, data[data.startIndex + 1] == 0x8B {
                let gzip = CompressionAlgorithm.gzip().decompressor
                gzip.window = ByteBufferAllocator().buffer(capacity: chunkSize)
                try gzip.startStream()
                decompressor = gzip
            }
            total += Int64(data.count)
            if let decompressor {
                var buffer = ByteBuffer(bytes: data)
                try buffer.decompressStream(with: decompressor) { output in
                    try output.withUnsafeReadableBytes(body)
                }
            } else {
                try data.withUnsafeBytes(body)
            }
        }
        try decompressor?.finishStream()
        return total
    }
}
