import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one tus upload on disk, written with `pwrite` and made durable with `fsync`.
///
/// Writes and syncs run on a dispatch queue (``TusStoreIO``) rather than on Swift's
/// cooperative threads, so a slow disk never stalls the server's other requests.
final class TusDataFile: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String, create: Bool) throws(TusUploadStoreError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0o600)
        guard fd >= 0 else { throw Self.failure("open", path: path, errno: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Writes all of `buffer` at `offset`.
    func write(_ buffer: ByteBuffer, at offset: Int64) throws(TusUploadStoreError) {
        let failure: Int32? = buffer.withUnsafeReadableBytes { bytes -> Int32? in
            var done = 0
            while done < bytes.count {
                let written = pwrite(
                    descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
        if let failure { throw Self.failure("write", path: path, errno: failure) }
    }

    /// Forces written bytes (and the file's length) to stable storage.
    func sync() throws(TusUploadStoreError) {
        // fsync rather than fdatasync: the file grows with every PATCH, and its new length is
        // metadata that must be durable too (fdatasync covers it on Linux, but fsync says so).
        guard fsync(descriptor) == 0 else { throw Self.failure("sync", path: path, errno: errno) }
    }

    /// The file's logical length.
    var size: Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Cuts the file to `length`, dropping bytes that were never acknowledged.
    func truncate(to length: Int64) throws(TusUploadStoreError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw Self.failure("truncate", path: path, errno: errno)
        }
    }

    /// The size of the file at `path`, or nil when there is none.
    static func size(atPath path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Makes renames and creations inside `directory` durable.
    static func syncDirectory(_ directory: String) throws(TusUploadStoreError) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("sync directory", path: directory, errno: errno) }
    }

    /// Writes `data` to `path` so that a crash leaves either the old or the new contents, never
    /// a mix: a temporary file, synced, renamed over the old one, then the directory synced.
    static func writeAtomically(_ data: Data, to path: String, directory: String) throws(TusUploadStoreError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create", path: temporary, errno: errno) }
        let failed: Int32? = data.withUnsafeBytes { bytes -> Int32? in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return fsync(fd) == 0 ? nil : errno
        }
        close(fd)
        if let failed {
            unlink(temporary)
            throw failure("write", path: temporary, errno: failed)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure("rename", path: path, errno: code)
        }
        try syncDirectory(directory)
    }

    static func failure(_ operation: String, path: String, errno code: Int32) -> TusUploadStoreError {
        let reason = String(cString: strerror(code))
        let hint = code == ENOSPC ? " (the disk is full: free space in the data folder)" : ""
        return TusUploadStoreError(.storage, "cannot \(operation) \(path): \(reason)\(hint)")
    }
}
