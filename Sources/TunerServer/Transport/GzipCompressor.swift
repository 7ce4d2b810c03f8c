import CZlib
import NIOCore

/// gzip for answers that are streamed (the XMLTV guide): each chunk in, what zlib has compressed
/// so far out, the trailer at the end. One per response, used by one task.
final class GzipCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output = [UInt8](repeating: 0, count: 64 << 10)

    /// nil when zlib cannot start (out of memory): the caller answers uncompressed.
    init?(level: Int32 = 6) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 16: the largest window, with a gzip wrapper. zlib keeps a pointer to the stream,
        // which is why it lives on the heap.
        guard CZlib_deflateInit2(stream, level, 15 + 16) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `text`; returns what is ready (often nothing: zlib collects a block first).
    func compress(_ text: String) -> ByteBuffer { run(Array(text.utf8), flush: Z_NO_FLUSH) }

    /// The rest and the gzip trailer.
    func finish() -> ByteBuffer { run([], flush: Z_FINISH) }

    private func run(_ input: [UInt8], flush: Int32) -> ByteBuffer {
        var result = ByteBuffer()
        input.withUnsafeBufferPointer { bytes in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress)
            stream.pointee.avail_in = UInt32(bytes.count)
            repeat {
                let produced: Int = output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    _ = deflate(stream, flush)
                    return out.count - Int(stream.pointee.avail_out)
                }
                result.writeBytes(output[0..<produced])
            } while stream.pointee.avail_out == 0
        }
        return result
    }
}
