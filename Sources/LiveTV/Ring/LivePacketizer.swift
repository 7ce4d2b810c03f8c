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
///
/// After a switch to another upstream, viewers get a clean join, as a new viewer does: nothing of
/// the new upstream until its PAT and PMT have come and then a keyframe on a video PID, so a
/// decoder never gets the middle of a picture; then the newest PAT and PMT and the keyframe. The
/// first packet of every PID from then on carries the discontinuity indicator (set in its
/// adaptation field, or in an adaptation-field-only packet put before it), so players reset their
/// clocks and continuity checks instead of reading the jump as lost packets.
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
    /// Set after a switch until the new upstream reaches a join point: its packets are held back.
    private var gate: SpliceGate?
    /// After a switch, the PIDs whose first packet got the discontinuity indicator (nil: none to flag).
    private var flagged: Set<UInt16>?

    /// Packets a switch waits at most for a keyframe (about 1.5 MB: several seconds of most channels);
    /// a stream that never flags its keyframes then joins at its PAT and PMT.
    static let joinLimit = 8192

    /// What a switch waits for: the new upstream's newest PAT and PMT.
    private struct SpliceGate {
        var pat: [UInt8]?
        var pmt: [UInt8]?
        var held = 0
    }

    struct Output {
        var packets: ByteBuffer
        var marks: [(packet: Int, mark: LiveRing.Mark)]
        /// Whether any packet showed progress (a new PCR, or a new PES in a stream without PCR).
        var progressed: Bool
        /// Whether whole packets were found (even when held back after a switch): the stream is TS.
        var sawPackets = false

        /// Appends one packet, with the discontinuity indicator when `flag` (see ``LivePacketizer``).
        mutating func append(_ bytes: some Collection<UInt8>, mark: LiveRing.Mark?, flag: Bool) {
            guard flag, let packet = TSPacket(bytes) else {
                if let mark { marks.append((packets.readableBytes / TSPacket.size, mark)) }
                packets.writeBytes(bytes)
                return
            }
            var copy = Array(bytes)
            if copy[3] & 0x20 != 0, copy[4] > 0 {
                copy[5] |= 0x80
            } else {
                // No flags byte to set: an adaptation-field-only packet before it carries the
                // indicator, with the counter the packet's own follows on from (one without
                // payload keeps the counter).
                let counter = packet.hasPayload ? (packet.continuityCounter &+ 15) & 0x0F : packet.continuityCounter
                packets.writeBytes([TSPacket.syncByte, copy[1] & 0x1F, copy[2], 0x20 | counter, 183, 0x80])
                packets.writeRepeatingByte(0xFF, count: TSPacket.size - 6)
            }
            if let mark { marks.append((packets.readableBytes / TSPacket.size, mark)) }
            packets.writeBytes(copy)
        }
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
            position += TSPacket.size
            output.sawPackets = true
            if monitor.observe(packet) { output.progressed = true }
            var mark: LiveRing.Mark?
            if packet.pid == TSPacket.patPID, packet.payloadUnitStart {
                mark = .pat
            } else if packet.pid != TSPacket.nullPID, packet.tableID(in: packetBytes) == 0x02 {
                mark = .pmt
                if let map = TSProgramMap(packet: Array(packetBytes)) { videoPIDs = map.videoPIDs }
            }
            if packet.randomAccess, packet.payloadUnitStart, videoPIDs.contains(packet.pid) {
                mark = .keyframe
            }
            if gate != nil, !passGate(packet, packetBytes, mark: mark, into: &output) { continue }
            output.append(packetBytes, mark: mark, flag: flag(packet.pid))
        }
        pending.removeFirst(position)
        return output
    }

    /// Holds a packet of a new upstream back until its join point; at that point writes the newest
    /// PAT and PMT and returns whether the packet itself follows them (false: it was one of them,
    /// or is held).
    private mutating func passGate(
        _ packet: TSPacket, _ bytes: ArraySlice<UInt8>, mark: LiveRing.Mark?, into output: inout Output
    ) -> Bool {
        guard var waiting = gate else { return true }
        if mark == .pat { waiting.pat = Array(bytes) }
        if mark == .pmt { waiting.pmt = Array(bytes) }
        waiting.held += 1
        // Without video (a radio programme, or a map that does not parse) the tables are the join point.
        guard let pat = waiting.pat, let pmt = waiting.pmt,
            mark == .keyframe || videoPIDs.isEmpty || waiting.held > Self.joinLimit
        else {
            gate = waiting
            return false
        }
        gate = nil
        output.append(pat, mark: .pat, flag: flag(TSPacket.patPID))
        if let table = TSPacket(pmt) { output.append(pmt, mark: .pmt, flag: flag(table.pid)) }
        return mark != .pat && mark != .pmt
    }

    /// Whether `pid`'s packet is its first since a switch (and notes it).
    private mutating func flag(_ pid: UInt16) -> Bool {
        guard pid != TSPacket.nullPID, flagged?.insert(pid).inserted == true else { return false }
        return true
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

    /// Starts over for a new upstream: its bytes owe nothing to the last one's alignment, counters
    /// or tables, and it is judged on its own (the format stays: a session that carried TS expects
    /// TS, and its viewers get a clean join to the new one).
    mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        aligned = false
        discarded = 0
        videoPIDs = []
        monitor.reset()
        gate = format == .transportStream ? SpliceGate() : nil
        flagged = format == .transportStream ? [] : nil
    }
}
