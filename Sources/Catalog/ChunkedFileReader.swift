import Foundation

/// Reads a file in fixed-size chunks, so playlists and guides of any size are parsed in constant
/// memory. Gzip files are inflated beforehand (`CatalogImporter.inflatedCopy(of:)`), outside the
/// import's database transaction.
struct ChunkedFileReader {
    var chunkSize = 1 << 20

    /// Calls `body` with each chunk; returns the bytes read.
    @discardableResult
    func read(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CatalogError.fetchFailed("cannot open \(path)")
        }
        defer { try? handle.close() }
        var total: Int64 = 0
        while let data = try handle.read(upToCount: chunkSize), !data.isEmpty {
            total += Int64(data.count)
            try data.withUnsafeBytes(body)
        }
        return total
    }
}
