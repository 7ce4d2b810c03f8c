import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sparse data file holding the cached bytes of a resource at their own offsets.
///
/// Positional reads and writes (`pread`/`pwrite`) let many readers and fetches share one
/// descriptor without seeking. The descriptor is closed when the last user releases the object,
/// so a reader that still holds an invalidated file keeps reading the old, consistent bytes.
final class DataFile: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens (creating if needed) the file at `path` for reading and writing.
    init(path: String, create: Bool) throws {
        self.path = path
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else { throw MediaCacheError.io("open", path: path, errno: errno) }
        self.descriptor = fd
        Self.openCount.withLock { $0 += 1 }
    }

    deinit {
        close(descriptor)
        Self.openCount.withLock { $0 -= 1 }
    }

    /// Data files open in this process: the cache closes idle ones beyond
    /// `MediaCacheConfiguration.maxOpenFiles` so touched resources do not use up descriptors.
    static let openCount = Mutex(0)

    /// Writes all of `buffer` at `offset`.
    func write(_ buffer: ByteBuffer, at offset: Int64) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = pwrite(
                    descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw MediaCacheError.io("write", path: path, errno: errno)
                }
                done += written
            }
        }
    }

    /// Reads exactly `count` bytes at `offset` into `buffer`, replacing its contents. When the
    /// connection has released the previous chunk, the buffer's memory is reused as it is: no
    /// allocation per chunk (a copy is made only while someone else still holds it).
    func read(at offset: Int64, count: Int, into buffer: inout ByteBuffer) throws {
        buffer.clear(minimumCapacity: count)
        let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            var done = 0
            while done < count {
                let n = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw MediaCacheError.io("read", path: path, errno: errno)
                }
                if n == 0 { break }
                done += n
            }
            return done
        }
        guard got == count else {
            throw MediaCacheError.io("read (file shorter than its index says)", path: path, errno: EIO)
        }
    }

    /// A second descriptor of the same open file, owned by the caller (for `sendfile`).
    func duplicateDescriptor() throws -> Int32 {
        #if canImport(Darwin)
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        #else
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, Int32(0))
        #endif
        guard copy >= 0 else { throw MediaCacheError.io("dup", path: path, errno: errno) }
        return copy
    }

    /// Forces written bytes to stable storage; only after this may the index claim them.
    func sync() throws {
        #if canImport(Darwin)
            let result = fsync(descriptor)
        #else
            let result = fdatasync(descriptor)
        #endif
        guard result == 0 else { throw MediaCacheError.io("sync", path: path, errno: errno) }
    }

    /// The file's size on disk as the file system reports it (its logical length).
    var size: Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Sets the logical length, cutting off anything after it.
    func truncate(to length: Int64) throws {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw MediaCacheError.io("truncate", path: path, errno: errno)
        }
    }
}

/// Free bytes available to unprivileged users on the file system holding `path`.
func freeDiskBytes(at path: String) -> Int64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
    return overflow ? Int64.max : Int64(clamping: bytes)
}

/// Creates a hard link, the way an export shares the cached bytes instead of copying them.
func hardLink(from source: String, to destination: String) -> Int32 {
    link(source, destination) == 0 ? 0 : errno
}
