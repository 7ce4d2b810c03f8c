import Foundation

/// A short MPEG-TS file played as an endless live stream: packets in order, and after the last
/// one the first again, with the continuity counters carried on and the clock (PCR, PTS, DTS)
/// moved on by the file's length each round, so players and continuity checks see one unbroken
/// live stream. A `verbatim` loop sends the file's bytes as they are instead, as many filler and
/// test channels do: every round, each PID's counter and the clock jump back to the file's start.
struct LiveTSLoop: Sendable {
    static let packetSize = 188
    let packets: [[UInt8]]
    /// The file's length in 90 kHz ticks: what each round adds to the timestamps.
    let loopTicks: UInt64
    let verbatim: Bool

    init(path: String, seconds: Double, verbatim: Bool = false) throws {
        self.verbatim = verbatim
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count >= Self.packetSize, data.count % Self.packetSize == 0, data.first == 0x47 else {
            throw LiveTSOriginError.notTransportStream(path)
        }
        var packets: [[UInt8]] = []
        packets.reserveCapacity(data.count / Self.packetSize)
        let bytes = [UInt8](data)
        for start in stride(from: 0, to: bytes.count, by: Self.packetSize) {
            packets.append(Array(bytes[start..<start + Self.packetSize]))
        }
        self.packets = packets
        loopTicks = UInt64(seconds * 90_000)
    }

    /// Bytes per second that plays the file in real time.
    func bytesPerSecond(seconds: Double) -> Int {
        max(Self.packetSize, Int(Double(packets.count * Self.packetSize) / seconds))
    }

    /// Where one connection is in the loop.
    struct Cursor {
        var index = 0
        var round: UInt64 = 0
        var counters: [UInt16: UInt8] = [:]
    }

    /// The next packet for `cursor`, rewritten for its round.
    func next(_ cursor: inout Cursor) -> [UInt8] {
        var packet = packets[cursor.index]
        if verbatim {
            cursor.index = (cursor.index + 1) % packets.count
            return packet
        }
        let pid = UInt16(packet[1] & 0x1F) << 8 | UInt16(packet[2])
        let control = (packet[3] >> 4) & 0x3
        if pid != 0x1FFF {
            let hasPayload = control & 0x1 != 0
            let previous = cursor.counters[pid]
            let counter: UInt8 = previous.map { hasPayload ? ($0 + 1) & 0x0F : $0 } ?? (packet[3] & 0x0F)
            cursor.counters[pid] = counter
            packet[3] = packet[3] & 0xF0 | counter
        }
        let offset = cursor.round &* loopTicks
        var payloadStart = 4
        if control & 0x2 != 0 {
            let length = Int(packet[4])
            payloadStart = 5 + length
            if length >= 7, packet[5] & 0x10 != 0 {
                // PCR: a 33-bit base at 90 kHz and a 9-bit extension.
                var base =
                    UInt64(packet[6]) << 25 | UInt64(packet[7]) << 17 | UInt64(packet[8]) << 9 | UInt64(packet[9]) << 1
                    | UInt64(packet[10] >> 7)
                base = (base &+ offset) & 0x1_FFFF_FFFF
                packet[6] = UInt8(truncatingIfNeeded: base >> 25)
                packet[7] = UInt8(truncatingIfNeeded: base >> 17)
                packet[8] = UInt8(truncatingIfNeeded: base >> 9)
                packet[9] = UInt8(truncatingIfNeeded: base >> 1)
                packet[10] = UInt8(truncatingIfNeeded: (base & 1) << 7) | (packet[10] & 0x7F)
            }
        }
        if packet[1] & 0x40 != 0, payloadStart + 14 <= Self.packetSize, packet[payloadStart] == 0,
            packet[payloadStart + 1] == 0, packet[payloadStart + 2] == 1, packet[payloadStart + 3] >= 0xBC
        {
            // A PES header: PTS and DTS move on by the round's offset.
            let flags = packet[payloadStart + 7] >> 6
            if flags & 0x2 != 0 { Self.shift(&packet, at: payloadStart + 9, by: offset) }
            if flags == 0x3, payloadStart + 19 <= Self.packetSize {
                Self.shift(&packet, at: payloadStart + 14, by: offset)
            }
        }
        cursor.index += 1
        if cursor.index == packets.count {
            cursor.index = 0
            cursor.round += 1
        }
        return packet
    }

    private static func shift(_ packet: inout [UInt8], at start: Int, by offset: UInt64) {
        var value =
            UInt64((packet[start] >> 1) & 0x07) << 30 | UInt64(packet[start + 1]) << 22
            | UInt64(packet[start + 2] >> 1) << 15 | UInt64(packet[start + 3]) << 7 | UInt64(packet[start + 4] >> 1)
        value = (value &+ offset) & 0x1_FFFF_FFFF
        packet[start] = packet[start] & 0xF1 | UInt8(truncatingIfNeeded: (value >> 29) & 0x0E)
        packet[start + 1] = UInt8(truncatingIfNeeded: value >> 22)
        packet[start + 2] = UInt8(truncatingIfNeeded: (value >> 14) & 0xFE) | 1
        packet[start + 3] = UInt8(truncatingIfNeeded: value >> 7)
        packet[start + 4] = UInt8(truncatingIfNeeded: (value << 1) & 0xFE) | 1
    }
}

/// Why the live TS origin could not start a channel.
public enum LiveTSOriginError: Error, CustomStringConvertible {
    case notTransportStream(String)
    case ffmpegFailed(String)

    public var description: String {
        switch self {
        case .notTransportStream(let path): "\(path) is not a whole number of MPEG-TS packets"
        case .ffmpegFailed(let transcript): "ffmpeg could not make the test stream: \(transcript)"
        }
    }
}
