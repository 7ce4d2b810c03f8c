import MediaFormats
import NIOCore

/// Cuts an upstream's bytes into whole transport stream packets: it finds the packet alignment
/// (and finds it again after garbage), keeps a partial packet for the next read, marks what a
/// joining viewer needs (keyframes, PAT, PMT) and feeds the progress monitor.
///
/// A session's first bytes decide what it carries: MPEG-TS (the common case), or, when they do
/// not line up as packets, anything else (an MP3 radio stream, a file) relayed as it is, shared
/// all the same but without join points or progress checks. Once a session has carried TS, every
/// later upstream must too: bytes that are not packets are then garbage, not another format.
struct LivePacketizer {
    enum Format: Equatable {
        case undecided
        case transportStream
        case other
    }

    private(set) var format = Format.undecided
    private var pending: [UInt8] = []
    private var aligned = false
    var monitor = TSProgressMonitor()
    /// The video PIDs the newest PMT lists: keyframes are random access points on these only
    /// (muxers flag every audio frame as one too).
    private(set) var videoPIDs: Set<UInt16> = []
    /// Bytes thrown away because they were not packets.
    private(set) var discarded = 0

    struct Output {
        var packets: ByteBuffer
        var marks: [(packet: Int, mark: LiveRing.Mark)]
        /// Whether any packet showed progress (a new PCR, or a new PES in a stream without PCR).
        var progressed: Bool
    }

    /// Takes the next bytes from the upstream; returns the whole packets among them.
    mutating func consume(_ buffer: ByteBuffer, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> Output {
        if format == .other {
            return Output(packets: buffer, marks: [], progressed: buffer.readableBytes > 0)
        }
        pending.append(contentsOf: buffer.readableBytesView)
        if format == .undecided {
            // Four packets' worth tell: a transport stream lines up within its first packet.
            guard pending.count >= TSPacket.size * 4 else {
                return Output(packets: allocator.buffer(capacity: 0), marks: [], progressed: false)
            }
            let start = Array(pending.prefix(TSPacket.size * 5))
            if TSPacket.alignment(in: start, confirmations: 3) == nil {
                return flush(allocator: allocator)
            }
            format = .transportStream
        }
        var output = Output(packets: allocator.buffer(capacity: pending.count), marks: [], progressed: false)
        var position = 0
        var count = 0
        while pending.count - position >= TSPacket.size {
            if !aligned || pending[position] != TSPacket.syncByte {
                aligned = false
                // Trust a 0x47 only with three more at packet distance: wait for four packets.
                guard pending.count - position >= TSPacket.size * 4 else { break }
                let window = Array(pending[position..<min(pending.count, position + TSPacket.size * 5)])
                guard let offset = TSPacket.alignment(in: window, confirmations: 3) else {
                    discarded += TSPacket.size
                    position += TSPacket.size
                    continue
                }
                discarded += offset
                position += offset
                aligned = true
                continue
            }
            let packetBytes = pending[position..<position + TSPacket.size]
            guard let packet = TSPacket(packetBytes) else {
                aligned = false
                continue
            }
            if packet.pid == TSPacket.patPID, packet.payloadUnitStart {
                output.marks.append((count, .pat))
            } else if packet.pid != TSPacket.nullPID, packet.tableID(in: packetBytes) == 0x02 {
                output.marks.append((count, .pmt))
                if let map = TSProgramMap(packet: Array(packetBytes)) { videoPIDs = map.videoPIDs }
            }
            if packet.randomAccess, packet.payloadUnitStart, videoPIDs.contains(packet.pid) {
                output.marks.append((count, .keyframe))
            }
            if monitor.observe(packet) { output.progressed = true }
            output.packets.writeBytes(packetBytes)
            count += 1
            position += TSPacket.size
        }
        pending.removeFirst(position)
        return output
    }

    /// At the end of an upstream: bytes still undecided are not a transport stream (a file or
    /// answer shorter than four packets), and are handed over as they are.
    mutating func flush(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> Output {
        guard format != .transportStream else {
            return Output(packets: allocator.buffer(capacity: 0), marks: [], progressed: false)
        }
        format = .other
        var buffer = allocator.buffer(capacity: pending.count)
        buffer.writeBytes(pending)
        pending.removeAll()
        return Output(packets: buffer, marks: [], progressed: buffer.readableBytes > 0)
    }

    /// Starts over for a new upstream: its bytes owe nothing to the last one's alignment (the
    /// format stays: a session that carried TS expects TS).
    mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        aligned = false
        monitor.reset()
    }
}
