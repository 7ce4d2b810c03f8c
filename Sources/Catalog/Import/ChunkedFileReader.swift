import Foundation

/// Reads a file in fixed-size chunks, so playlists and guides of any size are parsed in constant
/// memory. Gzip files are inflated beforehand (`CatalogImporter.inflatedCopy(of:)`), outside the
/// import's database transaction.
///
/// The reader is bounded: regular files only (``LocalSourceFile``), at most `limit` bytes and
/// until `deadline`, checked at every chunk. It copies a user's local file into the imports
/// folder before the import takes the database writer (`CatalogImporter.localSnapshot(of:)`),
/// and reads Tuner's own copies (downloads, inflated and local copies) while the streaming
/// pipeline holds the writer, so a file that keeps growing cannot hold it for longer than that.
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
