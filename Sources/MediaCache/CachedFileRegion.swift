#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of bytes that the cache holds in one of its data files, handed to a sink that can send
/// them without copying them through user space (``MediaBodySink/write(_:)-(CachedFileRegion)``).
///
/// The bytes are already written to the file, and the resource is marked in use until the sink
/// returns, so eviction cannot take them away while they are being sent.
public struct CachedFileRegion: Sendable {
    /// Where the run starts in the resource (and in the data file, which keeps bytes at their
    /// own offsets).
    public let offset: Int64
    /// How many bytes the run has.
    public let count: Int64
    let file: DataFile

    init(file: DataFile, offset: Int64, count: Int64) {
        self.file = file
        self.offset = offset
        self.count = count
    }

    /// A new descriptor of the data file, opened for reading. The caller owns it and must close
    /// it; it stays valid even if the cache drops the file meanwhile.
    public func openDescriptor() throws -> Int32 {
        try file.duplicateDescriptor()
    }
}
