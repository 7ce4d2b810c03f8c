import MediaFormats
import NIOCore

/// The recent bytes of a live transport stream, shared by a session's viewers: a bounded window
/// of whole 188-byte packets addressed by absolute offsets since the session began, with the
/// places a player can start decoding (random access points, PATs) and the newest PAT and PMT.
///
/// Appending never waits for a reader; the oldest bytes fall out when the window is full, and a
/// reader whose offset has fallen out starts again at a join point (see ``LiveSession``).
struct LiveRing {
    /// Bytes kept at most (rounded down to whole packets, at least 64 packets).
    let capacity: Int
    private var chunks: [(offset: Int64, bytes: ByteBuffer)] = []
    private var bytesHeld = 0
    /// The first offset still held.
    private(set) var start: Int64 = 0
    /// The offset after the newest byte.
    private(set) var end: Int64 = 0
    /// Offsets of packets with the random access indicator (a keyframe starts there), oldest first.
    private var keyframes: [Int64] = []
    /// Offsets of PAT packets, oldest first: a join point when the stream marks no keyframes.
    private var tables: [Int64] = []
    /// PAT and PMT packets held, with their offsets: a joining viewer gets the newest ones before
    /// its join point first (their continuity counters then run on into what follows).
    private var pats: [(offset: Int64, packet: ByteBuffer)] = []
    private var pmts: [(offset: Int64, packet: ByteBuffer)] = []

    init(capacity: Int) {
        self.capacity = max(capacity / TSPacket.size, 64) * TSPacket.size
    }

    /// What a packet means for joining, found by the session's parser.
    enum Mark {
        case keyframe
        case pat
        case pmt
    }

    /// Appends whole packets; `marks` are (index of the packet in `packets`, what it is).
    mutating func append(_ packets: ByteBuffer, marks: [(packet: Int, mark: Mark)]) {
        guard packets.readableBytes > 0 else { return }
        for (index, mark) in marks {
            let offset = end + Int64(index * TSPacket.size)
            switch mark {
            case .keyframe: keyframes.append(offset)
            case .pat:
                tables.append(offset)
                if let packet = packets.getSlice(at: packets.readerIndex + index * TSPacket.size, length: TSPacket.size)
                {
                    pats.append((offset, packet))
                }
            case .pmt:
                if let packet = packets.getSlice(at: packets.readerIndex + index * TSPacket.size, length: TSPacket.size)
                {
                    pmts.append((offset, packet))
                }
            }
        }
        chunks.append((end, packets))
        end += Int64(packets.readableBytes)
        bytesHeld += packets.readableBytes
        while bytesHeld > capacity, chunks.count > 1 {
            let dropped = chunks.removeFirst()
            bytesHeld -= dropped.bytes.readableBytes
            start = chunks[0].offset
        }
        if let first = keyframes.firstIndex(where: { $0 >= start }) {
            keyframes.removeFirst(first)
        } else {
            keyframes.removeAll()
        }
        if let first = tables.firstIndex(where: { $0 >= start }) {
            tables.removeFirst(first)
        } else {
            tables.removeAll()
        }
        Self.trim(&pats, start: start)
        Self.trim(&pmts, start: start)
    }

    /// Drops the tables before `start` but the newest of them: a viewer joining at the window's
    /// start needs it.
    private static func trim(_ tables: inout [(offset: Int64, packet: ByteBuffer)], start: Int64) {
        let inside = tables.firstIndex { $0.offset >= start } ?? tables.count
        if inside > 1 { tables.removeFirst(inside - 1) }
    }

    /// Where a viewer joining now starts: the newest keyframe held, else the newest PAT, else the
    /// end (the viewer waits for what comes next).
    var joinOffset: Int64 {
        keyframes.last ?? tables.last ?? end
    }

    /// Whether a keyframe is held to join at.
    var hasKeyframe: Bool { !keyframes.isEmpty }

    /// The PAT and PMT to send before bytes from `offset` (a player needs both to find the
    /// streams; the keyframe's own tables may have been sent long before it): the newest ones
    /// before it, so their counters continue into the tables that follow.
    func tablesPrefix(before offset: Int64) -> ByteBuffer? {
        guard var prefix = (pats.last { $0.offset < offset } ?? pats.last)?.packet else { return nil }
        if var pmt = (pmts.last { $0.offset < offset } ?? pmts.last)?.packet { prefix.writeBuffer(&pmt) }
        return prefix
    }

    /// Up to `limit` bytes from `offset` (which must lie in `start..<end`), without copying: the
    /// slices share the ring's storage.
    func read(from offset: Int64, limit: Int) -> [ByteBuffer] {
        guard offset >= start, offset < end else { return [] }
        // Chunks are few (a window of a few MiB in reads of up to 64 KiB): a binary search keeps the
        // cost flat anyway.
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].offset <= offset { low = middle } else { high = middle - 1 }
        }
        var result: [ByteBuffer] = []
        var remaining = limit
        var index = low
        var position = offset
        while remaining > 0, index < chunks.count {
            let chunk = chunks[index]
            let skip = Int(position - chunk.offset)
            let length = min(chunk.bytes.readableBytes - skip, remaining)
            if length > 0, let slice = chunk.bytes.getSlice(at: chunk.bytes.readerIndex + skip, length: length) {
                result.append(slice)
                remaining -= length
                position += Int64(length)
            }
            index += 1
        }
        return result
    }
}
