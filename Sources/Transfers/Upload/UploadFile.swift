import Foundation
import NIOCore
import Tus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A local file opened for uploading: read in pieces with `pread`, so any part of it can be
/// sent (or hashed) without loading the whole file.
final class UploadFile: Sendable {
    let path: String
    let size: Int64
    private let descriptor: Int32

    /// Bytes per read: large enough for few syscalls, small enough to keep memory flat.
    static let pieceSize = 256 << 10

    init(path: String) throws(TransferError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure("cannot open", path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Self.failure("cannot read the size of", path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw TransferError.unreadable(path: path, "\(path) is not a regular file")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes at `offset` (fewer only at the end of the file).
    func read(at offset: Int64, count: Int) throws(TransferError) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var failure: Int32?
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes -> Int in
            var done = 0
            while done < count {
                let n = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return 0
                }
                if n == 0 { break }
                done += n
            }
            return done
        }
        if let failure { throw Self.failure("cannot read", path: path, errno: failure) }
        return buffer
    }

    /// The bytes `[offset, offset + count)` as an async sequence, read one piece at a time as
    /// the connection asks for them. `onRead` sees the running total of bytes handed out.
    func body(from offset: Int64, count: Int64, onRead: @escaping @Sendable (Int64) -> Void = { _ in })
        -> UploadFileBody
    {
        UploadFileBody(file: self, start: offset, count: count, onRead: onRead)
    }

    /// The digest of `[offset, offset + count)`.
    func digest(from offset: Int64, count: Int64, algorithm: TusChecksumAlgorithm) throws(TransferError) -> Data {
        var hasher = algorithm.makeHasher()
        var position = offset
        let end = offset + count
        while position < end {
            let piece = try read(at: position, count: Int(min(Int64(Self.pieceSize), end - position)))
            guard piece.readableBytes > 0 else { throw Self.shrunk(path) }
            piece.withUnsafeReadableBytes { hasher.update($0) }
            position += Int64(piece.readableBytes)
        }
        return hasher.finalize()
    }

    static func failure(_ what: String, path: String, errno code: Int32) -> TransferError {
        TransferError.unreadable(path: path, "\(what) \(path): \(String(cString: strerror(code)))")
    }

    static func shrunk(_ path: String) -> TransferError {
        TransferError.unreadable(path: path, "\(path) became shorter while it was being uploaded")
    }
}

/// Part of an ``UploadFile`` as a request body.
struct UploadFileBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let file: UploadFile
    let start: Int64
    let count: Int64
    let onRead: @Sendable (Int64) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: UploadFileBody
        var done: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard done < body.count else { return nil }
            try Task.checkCancellation()
            let want = Int(Swift.min(Int64(UploadFile.pieceSize), body.count - done))
            let piece = try body.file.read(at: body.start + done, count: want)
            guard piece.readableBytes > 0 else { throw UploadFile.shrunk(body.file.path) }
            done += Int64(piece.readableBytes)
            body.onRead(done)
            return piece
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
