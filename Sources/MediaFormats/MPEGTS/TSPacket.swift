/// One 188-byte MPEG transport stream packet, read without trusting it: the header fields live
/// sessions need to join a stream where a player can start decoding (a PAT, a random access
/// point) and to notice a stream that sends bytes without progress (continuity counters, PCR).
///
/// ISO/IEC 13818-1 §2.4.3: sync byte 0x47; transport error, payload unit start and priority bits;
/// a 13-bit PID; scrambling, adaptation field control and a 4-bit continuity counter; then an
/// optional adaptation field (its length, flags — discontinuity, random access — and a PCR).
public struct TSPacket: Sendable, Hashable {
    public static let size = 188
    public static let syncByte: UInt8 = 0x47
    /// The PID of the Program Association Table.
    public static let patPID: UInt16 = 0x0000
    /// The PID of null (stuffing) packets, which carry no continuity.
    public static let nullPID: UInt16 = 0x1FFF

    public var pid: UInt16
    public var transportError: Bool
    public var payloadUnitStart: Bool
    public var scrambled: Bool
    public var hasPayload: Bool
    public var continuityCounter: UInt8
    /// The adaptation field's discontinuity indicator: the counter (or time base) may jump here.
    public var discontinuity: Bool
    /// The adaptation field's random access indicator: a decoder can start here (a keyframe).
    public var randomAccess: Bool
    /// The program clock reference in 27 MHz ticks, when the packet carries one.
    public var pcr: UInt64?
    /// Where the payload starts in the packet (after the header and adaptation field).
    public var payloadOffset: Int

    /// The packet at the start of `bytes`, or nil when it is shorter than a packet, lacks the sync
    /// byte, or has an adaptation field longer than the packet.
    public init?(_ bytes: some Collection<UInt8>) {
        var iterator = bytes.makeIterator()
        var header = [UInt8](repeating: 0, count: 12)
        for index in 0..<12 {
            guard let byte = iterator.next() else { return nil }
            header[index] = byte
        }
        guard bytes.count >= Self.size, header[0] == Self.syncByte else { return nil }
        transportError = header[1] & 0x80 != 0
        payloadUnitStart = header[1] & 0x40 != 0
        pid = UInt16(header[1] & 0x1F) << 8 | UInt16(header[2])
        scrambled = header[3] & 0xC0 != 0
        let control = (header[3] >> 4) & 0x3
        hasPayload = control & 0x1 != 0
        continuityCounter = header[3] & 0x0F
        discontinuity = false
        randomAccess = false
        pcr = nil
        payloadOffset = 4
        if control & 0x2 != 0 {
            let length = Int(header[4])
            // The field fills at most the rest of the packet (183 bytes after its length byte).
            guard length <= Self.size - 5 else { return nil }
            payloadOffset = 5 + length
            if length > 0 {
                let flags = header[5]
                discontinuity = flags & 0x80 != 0
                randomAccess = flags & 0x40 != 0
                if flags & 0x10 != 0, length >= 7 {
                    // 33-bit base (90 kHz) and 9-bit extension: base * 300 + extension.
                    let base =
                        UInt64(header[6]) << 25 | UInt64(header[7]) << 17 | UInt64(header[8]) << 9
                        | UInt64(header[9]) << 1 | UInt64(header[10] >> 7)
                    let extensionValue = UInt64(header[10] & 0x01) << 8 | UInt64(header[11])
                    pcr = base * 300 + extensionValue
                }
            }
        }
    }

    /// The table id of the PSI section that starts in this packet (0 for a PAT, 2 for a PMT), read
    /// from `bytes` (the packet's own bytes); nil when no section starts here or it lies outside.
    public func tableID(in bytes: some Collection<UInt8>) -> UInt8? {
        guard payloadUnitStart, hasPayload, payloadOffset < Self.size else { return nil }
        let start = bytes.index(bytes.startIndex, offsetBy: payloadOffset)
        let pointer = Int(bytes[start])
        // The pointer field says how far into the payload the section starts.
        guard payloadOffset + 1 + pointer < Self.size else { return nil }
        return bytes[bytes.index(start, offsetBy: 1 + pointer)]
    }

    /// Whether `next` continues this packet's PID without a gap: the counter goes up by one when
    /// it carries payload, stays when it does not; a discontinuity indicator excuses any jump.
    /// (One repeated packet is allowed by the standard; it is reported as continuous too.)
    public func isFollowed(by next: TSPacket) -> Bool {
        guard next.pid == pid, pid != Self.nullPID, !next.discontinuity else { return true }
        if !next.hasPayload { return next.continuityCounter == continuityCounter }
        return next.continuityCounter == (continuityCounter + 1) & 0x0F || next.continuityCounter == continuityCounter
    }

    /// The offset of the first place in `bytes` where packets line up: a sync byte followed by sync
    /// bytes every 188 bytes for `confirmations` more packets (fewer when the bytes end first, but
    /// at least one). Nil when there is none.
    public static func alignment(in bytes: [UInt8], confirmations: Int = 3) -> Int? {
        guard bytes.count >= size else { return nil }
        for start in 0..<min(size, bytes.count - size + 1) where bytes[start] == syncByte {
            var aligned = true
            var checked = 0
            var next = start + size
            while checked < confirmations, next < bytes.count {
                if bytes[next] != syncByte {
                    aligned = false
                    break
                }
                checked += 1
                next += size
            }
            if aligned { return start }
        }
        return nil
    }
}
