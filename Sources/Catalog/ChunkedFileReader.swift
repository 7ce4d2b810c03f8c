import Foundation

/// Reads a file in fixed-size chunks, so playlists and guides of any size are parsed in constant
/// memory. Gzip files are inflated beforehand (`CatalogImporter.inflatedCopy(of:)`), outside the
/// import's database transaction.
///
/// Parsing runs while the import holds the database writer (the streaming pipeline writes as it
/// parses), so the reader is bounded: regular files only (``LocalSourceFile``), at most `limit`
/// bytes and until `deadline`, checked at every chunk. A file that keeps growing cannot hold the
/// writer for longer than that.
struct ChunkedFileReader {
    var chunkSize = 1 << 20
    /// The most bytes read before the import is refused.
    var limit: Int64 = .max
    /// When reading gives up.
    var deadline: ContinuousClock.Instant?

    /// Calls `body` with each chunk; returns the bytes read.
    @discardableResult
    func read(path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        let handle = try LocalSourceFile.open(path)
        defer { try? handle.close() }
        var total: Int64 = 0
        while let data = try handle.read(upToCount: chunkSize), !data.isEmpty {
            total += Int64(data.count)
            guard total <= limit else { throw ImportLimits.tooLarge(path, limit: limit) }
            if let deadline, ContinuousClock.now > deadline { throw ImportLimits.tooSlow(path) }
            try data.withUnsafeBytes(body)
        }
        return total
    }
}
