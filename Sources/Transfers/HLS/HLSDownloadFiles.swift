import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX file operations of a download: streamed writes, `fsync`, atomic replacement.
///
/// Plain descriptors rather than `FileHandle`, because durability needs `fsync` of files and of
/// the folder (so a rename survives a power cut), and ranges need `pwrite`.
enum HLSDownloadFiles {
    /// Writes `bytes` to `path` so that a reader (or a crash) sees either the old file or the
    /// whole new one: a temporary file in the same folder, synced, renamed over, folder synced.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(TransferError) {
        let temporary = path + ".tmp"
        let file = try HLSDownloadFile(path: temporary, truncate: true)
        do {
            try file.write(bytes, at: 0)
            try file.sync()
        } catch {
            file.close()
            unlink(temporary)
            throw error
        }
        file.close()
        try rename(temporary, to: path)
    }

    /// Renames `source` to `destination` (replacing it) and syncs their folder.
    static func rename(_ source: String, to destination: String) throws(TransferError) {
        #if canImport(Darwin)
            let result = Darwin.rename(source, destination)
        #elseif canImport(Musl)
            let result = Musl.rename(source, destination)
        #else
            let result = Glibc.rename(source, destination)
        #endif
        guard result == 0 else { throw ioError("rename to \(destination)", path: source, errno: errno) }
        syncDirectory(of: destination)
    }

    /// Syncs the folder holding `path`, so a new name in it is durable. Best effort: some file
    /// systems refuse to sync a directory, and the data itself is already synced.
    static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        closeDescriptor(fd)
    }

    /// The size of the file at `path`, nil when it does not exist.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    static func ioError(_ operation: String, path: String, errno code: Int32) -> TransferError {
        let reason = String(cString: strerror(code))
        return TransferError.hls(
            .fileSystem, underlying: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO),
            "\(operation) failed for \(path): \(reason)")
    }
}

/// `close(2)` under a name that does not collide with `HLSDownloadFile.close()`.
@inline(__always)
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// One open file of the destination folder, written at explicit offsets.
final class HLSDownloadFile {
    let path: String
    private var descriptor: Int32

    /// Opens `path` for writing, creating it; `truncate` empties it first (a whole file is
    /// rewritten from byte 0 on every try; a file of byte ranges keeps its other ranges).
    init(path: String, truncate: Bool) throws(TransferError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0o644)
        guard fd >= 0 else { throw HLSDownloadFiles.ioError("open", path: path, errno: errno) }
        descriptor = fd
    }

    deinit { close() }

    func write(_ buffer: ByteBuffer, at offset: Int64) throws(TransferError) {
        let result: Int32 = buffer.withUnsafeReadableBytes { bytes in
            Self.writeAll(descriptor, bytes, at: offset)
        }
        if result != 0 { throw HLSDownloadFiles.ioError("write", path: path, errno: result) }
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(TransferError) {
        let result: Int32 = bytes.withUnsafeBytes { Self.writeAll(descriptor, $0, at: offset) }
        if result != 0 { throw HLSDownloadFiles.ioError("write", path: path, errno: result) }
    }

    /// Forces the written bytes to stable storage; an item is recorded only after this.
    func sync() throws(TransferError) {
        #if canImport(Darwin)
            let result = fsync(descriptor)
        #else
            let result = fdatasync(descriptor)
        #endif
        guard result == 0 else { throw HLSDownloadFiles.ioError("sync", path: path, errno: errno) }
    }

    func close() {
        guard descriptor >= 0 else { return }
        closeDescriptor(descriptor)
        descriptor = -1
    }

    /// 0, or the errno of the failed `pwrite`.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += written
        }
        return 0
    }
}
