import Foundation
import NIOCore
import NIOPosix

/// Where the bytes of a response body come from.
enum BodySource {
    /// A short message (errors, redirects), written in one piece.
    case text(ByteBuffer)
    /// Generated text content (live playlists), counted like file content.
    case document(ByteBuffer)
    /// Generated `/files` content.
    case generated(ContentPattern)
    /// A real file under the directory given to `serveDirectory(_:)`.
    case file(path: String)

    static func text(_ string: String) -> BodySource {
        .text(ByteBuffer(string: string))
    }

    /// Only content counts towards `bodyBytesSent`: tests use it to prove how much a cache fetched
    /// upstream, and error or redirect text would blur that.
    var isContent: Bool {
        switch self {
        case .text: false
        case .document, .generated, .file: true
        }
    }

    /// The body bytes `offset..<offset + count`. Generated and text bytes are ready at once; file
    /// bytes are read on the shared thread pool because file I/O blocks and must not stall the loop.
    func read(
        offset: Int,
        count: Int,
        allocator: ByteBufferAllocator,
        eventLoop: any EventLoop
    ) -> EventLoopFuture<ByteBuffer> {
        switch self {
        case .text(let buffer), .document(let buffer):
            guard let slice = buffer.getSlice(at: buffer.readerIndex + offset, length: count) else {
                return eventLoop.makeFailedFuture(BodySourceError.shortRead)
            }
            return eventLoop.makeSucceededFuture(slice)

        case .generated(let pattern):
            var buffer = allocator.buffer(capacity: count)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
                pattern.copyBytes(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: destination[..<count]))
                return count
            }
            return eventLoop.makeSucceededFuture(buffer)

        case .file(let path):
            return NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                try handle.seek(toOffset: UInt64(offset))
                let data = try handle.read(upToCount: count) ?? Data()
                // The file shrank since its length was announced; the caller has to close.
                guard data.count == count else { throw BodySourceError.shortRead }
                var buffer = allocator.buffer(capacity: count)
                data.withUnsafeBytes { _ = buffer.writeBytes($0) }
                return buffer
            }
        }
    }
}

/// Why a body could not be produced as announced.
enum BodySourceError: Error {
    case shortRead
}
