/// Watches a live transport stream for progress, packet by packet: continuity counter errors
/// (packets lost or mixed in) and whether the clock moves (a new PCR, or, in a stream without
/// PCRs, a new PES packet starting). A stream that sends bytes but makes no progress is as dead as
/// one that sends nothing; a live session switches to an alternative on either.
public struct TSProgressMonitor: Sendable {
    /// The last packet seen on each PID (counter, payload), for continuity.
    private var last: [UInt16: TSPacket] = [:]
    private var lastPCR: [UInt16: UInt64] = [:]
    private var sawPCR = false
    /// Continuity errors since the monitor started.
    public private(set) var continuityErrors = 0
    /// Packets seen.
    public private(set) var packets = 0

    public init() {}

    /// Takes the next packet; returns whether it shows progress (a new clock value).
    public mutating func observe(_ packet: TSPacket) -> Bool {
        packets &+= 1
        guard packet.pid != TSPacket.nullPID else { return false }
        if let previous = last[packet.pid], !previous.isFollowed(by: packet) {
            continuityErrors &+= 1
        }
        // Only what continuity needs; a bounded number of PIDs (13 bits) can be held.
        last[packet.pid] = packet
        if let pcr = packet.pcr {
            sawPCR = true
            defer { lastPCR[packet.pid] = pcr }
            return lastPCR[packet.pid] != pcr
        }
        // Without any PCR, the start of a PES packet on a non-PSI PID is the sign of life.
        return !sawPCR && packet.payloadUnitStart && packet.pid >= 0x20
    }

    /// Forgets the stream: after a switch to another upstream, counters start again.
    public mutating func reset() {
        last.removeAll(keepingCapacity: true)
        lastPCR.removeAll(keepingCapacity: true)
        sawPCR = false
    }
}
