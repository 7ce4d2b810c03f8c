import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file opened for positioned writes, with the few POSIX calls downloads need.
final class PartialFile: Sendable {
    let path: String
    let descriptor: Int32

    /// Opens `path` for reading and writing, creating it (mode 0644) when missing.
    init(path: String, create: Bool = true) throws {
        self.path = path
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw PartialFile.error("cannot open \(path)") }
        descriptor = fd
    }

    func close() {
        _ = systemClose(descriptor)
    }

    var size: Int64 {
        get throws {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw PartialFile.error("cannot stat \(path)") }
            return Int64(info.st_size)
        }
    }

    func truncate(to length: Int64) throws {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw PartialFile.error("cannot truncate \(path)") }
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and EINTR.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            if written < 0 {
                if errno == EINTR { continue }
                throw PartialFile.error("cannot write \(path)")
            }
            done += written
        }
    }

    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    func read(count: Int, at offset: Int64) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
        guard got >= 0 else { throw PartialFile.error("cannot read \(path)") }
        buffer.removeLast(count - got)
        return buffer
    }

    /// Makes the written data durable (fdatasync on Linux; fsync elsewhere).
    func sync() throws {
        #if os(Linux)
            let result = fdatasync(descriptor)
        #else
            let result = fsync(descriptor)
        #endif
        guard result == 0 else { throw PartialFile.error("cannot sync \(path)") }
    }

    /// `sync()` on a thread outside Swift's cooperative pool, which must never block on disk.
    func syncOffPool() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.syncQueue.async {
                do {
                    try self.sync()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private static let syncQueue = DispatchQueue(label: "tuner.transfers.sync", attributes: .concurrent)

    /// Syncs a directory so a rename or link in it is durable.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = systemClose(fd)
    }

    /// Free bytes for unprivileged users on the file system holding `path`.
    static func freeDiskBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return overflow ? Int64.max : Int64(clamping: bytes)
    }

    /// Hard-links `source` to `destination`, failing (false) when the destination exists: a
    /// rename that never replaces another file.
    static func linkWithoutReplacing(_ source: String, to destination: String) throws -> Bool {
        if link(source, destination) == 0 { return true }
        if errno == EEXIST { return false }
        throw PartialFile.error("cannot move \(source) to \(destination)")
    }

    /// The current errno as a classified error: disk full is permanent, other I/O errors transient.
    static func error(_ what: String) -> TransferError {
        let code = errno
        let text = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return .permanent("\(what): the disk is full (\(text)); free some space, then retry")
        }
        if code == EACCES || code == EROFS || code == EPERM {
            return .permanent("\(what): \(text); check the data folder's permissions")
        }
        return .transient("\(what): \(text)")
    }
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        return Glibc.close(fd)
    #else
        return Darwin.close(fd)
    #endif
}
