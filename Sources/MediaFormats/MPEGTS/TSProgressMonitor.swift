/// Watches a live transport stream for progress, packet by packet: continuity counter errors
/// (packets lost or mixed in) and whether the clock moves (a new PCR, or, in a stream without
/// PCRs, a new PES packet starting). A stream that sends bytes but makes no progress is as dead as
/// one that sends nothing; a live session switches to an alternative on either.
///
/// A counter gap is an error only when it breaks something. A looping file (a test card, a filler
/// channel) and a provider that splices in another feed jump every PID's counter at once, at the
/// start of a table or a PES packet; players decode straight through that, so it is counted as a
/// splice, not as lost packets. The rule, with its reason:
/// - A gap whose packet continues a PES packet or a section (no payload_unit_start) means part of
///   that unit is gone: an error at once.
/// - A gap at a unit start (or on a packet without payload) loses nothing the decoder needs, but
///   it is one too unless the whole stream was cut there, so it opens a splice window: the first
///   packet of every other PID active before it votes. A clean jump votes for a splice; a packet
///   that continues its counter in the middle of a unit votes against (that PID was not cut); a
///   continuous unit start says nothing (a loop lines up by chance 1 time in 16).
/// - The window closes when every active PID has voted, at the first vote against, or after
///   ``spliceWindowPackets`` packets. Two or more clean jumps and no vote against make one splice
///   (``splices``); otherwise each jump counts as an error. A second gap on a PID inside the
///   window is an error: a splice cuts each PID once.
/// A packet with the discontinuity indicator excuses its jump, as the standard says.
///
/// Random loss rarely passes: a lost packet mostly leaves a gap in the middle of a video PES, and
/// where it leaves one at a unit start, the next video packet continues in the middle of its PES.
/// A garbled stream is still caught, and so are one with lost sync (no packets) and one that
/// stops decoding (no new PCR): those checks live in the session.
public struct TSProgressMonitor: Sendable {
    /// How long a splice window stays open at most, in packets (about 770 kB: a second of a
    /// 6 Mb/s channel, several of a small one).
    public static let spliceWindowPackets = 4096

    /// The last packet seen on each PID (counter, payload), for continuity.
    private var last: [UInt16: TSPacket] = [:]
    /// The packet number each PID was last seen at: a PID gone for a whole window is not waited for.
    private var lastSeen: [UInt16: Int] = [:]
    private var lastPCR: [UInt16: UInt64] = [:]
    private var sawPCR = false
    private var window: SpliceWindow?
    /// Continuity errors since the monitor started or was reset.
    public private(set) var continuityErrors = 0
    /// Cuts through the whole stream (a file looping, a provider's splice) since the start or reset.
    public private(set) var splices = 0
    /// Packets seen.
    public private(set) var packets = 0

    /// The votes of the PIDs after a clean jump (see the type's rule).
    private struct SpliceWindow {
        var opened: Int
        /// Active PIDs that have not shown a packet with payload since the window opened.
        var waiting: Set<UInt16>
        var voted: Set<UInt16>
        var jumps = 1
        var against = false
    }

    public init() {}

    /// Takes the next packet; returns whether it shows progress (a new clock value).
    public mutating func observe(_ packet: TSPacket) -> Bool {
        packets &+= 1
        guard packet.pid != TSPacket.nullPID else { return false }
        if let previous = last[packet.pid] {
            judge(packet, continuous: previous.isFollowed(by: packet))
        } else {
            window?.voted.insert(packet.pid)
        }
        // Only what continuity needs; a bounded number of PIDs (13 bits) can be held.
        last[packet.pid] = packet
        lastSeen[packet.pid] = packets
        closeWindowIfDecided()
        if let pcr = packet.pcr {
            sawPCR = true
            defer { lastPCR[packet.pid] = pcr }
            return lastPCR[packet.pid] != pcr
        }
        // Without any PCR, the start of a PES packet on a non-PSI PID is the sign of life.
        return !sawPCR && packet.payloadUnitStart && packet.pid >= 0x20
    }

    /// Applies the splice rule to a packet of a PID seen before.
    private mutating func judge(_ packet: TSPacket, continuous: Bool) {
        // Nothing of a unit is lost when the cut falls before its start, or on a packet without payload.
        let clean = packet.payloadUnitStart || !packet.hasPayload
        guard var open = window else {
            if !continuous {
                if clean { openWindow(at: packet.pid) } else { continuityErrors &+= 1 }
            }
            return
        }
        defer { window = open }
        guard !open.voted.contains(packet.pid) else {
            if !continuous { continuityErrors &+= 1 }
            return
        }
        if continuous {
            // A packet without payload says nothing about its PID's units; the next one will.
            guard packet.hasPayload else { return }
            if !packet.payloadUnitStart && !packet.discontinuity { open.against = true }
        } else if clean {
            open.jumps += 1
        } else {
            continuityErrors &+= 1
            open.against = true
        }
        open.voted.insert(packet.pid)
        open.waiting.remove(packet.pid)
    }

    private mutating func openWindow(at pid: UInt16) {
        let recent = packets &- Self.spliceWindowPackets
        var waiting = Set(lastSeen.lazy.filter { $0.value > recent }.map(\.key))
        waiting.remove(pid)
        window = SpliceWindow(opened: packets, waiting: waiting, voted: [pid])
    }

    private mutating func closeWindowIfDecided() {
        guard let open = window else { return }
        let expired = packets &- open.opened >= Self.spliceWindowPackets
        guard open.waiting.isEmpty || open.against || expired else { return }
        if open.jumps >= 2 && !open.against {
            splices &+= 1
        } else {
            continuityErrors &+= open.jumps
        }
        window = nil
    }

    /// Forgets the stream: after a switch to another upstream, it is judged on its own packets,
    /// so every counter starts again.
    public mutating func reset() {
        last.removeAll(keepingCapacity: true)
        lastSeen.removeAll(keepingCapacity: true)
        lastPCR.removeAll(keepingCapacity: true)
        sawPCR = false
        window = nil
        continuityErrors = 0
        splices = 0
        packets = 0
    }
}
