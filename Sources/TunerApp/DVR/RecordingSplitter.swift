import NIOCore

/// Where a recording's stream changes under it: a failover to an alternative brings other PIDs
/// (another provider's encoder), and an MP4 remux keeps only the streams found at a file's start.
/// So a part ends where a PID never seen in it begins, once the part has settled (its first
/// packets show every stream the channel has), and the next part starts there: no byte is lost,
/// each part remuxes whole.
///
/// Reads only the PID of each packet, tracking packet boundaries across buffers (a buffer may
/// end inside a packet).
struct RecordingSplitter {
    /// Packets a part reads before a new PID counts as a change of stream.
    static let settlingPackets = 500
    private var known = Set<UInt16>()
    private var packets = 0
    /// Bytes of the packet that straddles into the next buffer (0: the next buffer starts one).
    private var carried = 0

    /// A new part begins: what it reads next settles it again.
    mutating func reset() {
        known.removeAll()
        packets = 0
    }

    /// The offset in `buffer` where a new stream begins, if one does; the bytes before it belong
    /// to the current part. Call again with the rest after a split (following ``reset()``).
    mutating func split(in buffer: ByteBuffer) -> Int? {
        let count = buffer.readableBytes
        var offset = carried == 0 ? 0 : 188 - carried
        carried = 0
        return buffer.withUnsafeReadableBytes { bytes -> Int? in
            while offset < count {
                guard offset + 3 <= count else {
                    carried = count - offset
                    return nil
                }
                if offset + 188 > count { carried = count - offset }
                if bytes[offset] == 0x47 {
                    let pid = (UInt16(bytes[offset + 1] & 0x1F) << 8) | UInt16(bytes[offset + 2])
                    // PAT, CAT and null packets come and go in every stream.
                    if pid > 0x1 && pid != 0x1FFF {
                        if packets >= Self.settlingPackets, !known.contains(pid) {
                            carried = 0
                            return offset
                        }
                        known.insert(pid)
                    }
                    packets += 1
                }
                offset += 188
            }
            return nil
        }
    }
}
