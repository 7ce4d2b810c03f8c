/// The elementary streams a PMT section lists (ISO/IEC 13818-1 §2.4.4.8), read without trusting
/// it: a live session needs to know which PIDs carry video, so that it joins viewers at a video
/// keyframe (muxers set the random access flag on every audio frame too).
public struct TSProgramMap: Sendable, Equatable {
    public struct Stream: Sendable, Equatable {
        public var pid: UInt16
        public var streamType: UInt8

        /// MPEG-1/2 video, MPEG-4 Part 2, H.264, HEVC, VVC, AVS.
        public var isVideo: Bool { [0x01, 0x02, 0x10, 0x1B, 0x24, 0x33, 0x42, 0xD2].contains(streamType) }
    }

    public var pcrPID: UInt16
    public var streams: [Stream]

    /// The video PIDs.
    public var videoPIDs: Set<UInt16> { Set(streams.filter(\.isVideo).map(\.pid)) }

    /// The map in `packet` (a whole 188-byte packet whose payload starts a PMT section that fits
    /// in it, as nearly all do), or nil for anything else.
    public init?(packet bytes: [UInt8]) {
        guard bytes.count == TSPacket.size, let packet = TSPacket(bytes), packet.tableID(in: bytes) == 0x02 else {
            return nil
        }
        let section = packet.payloadOffset + 1 + Int(bytes[packet.payloadOffset])
        // table_id, section_syntax/length (2), program (2), version (1), section numbers (2),
        // PCR PID (2), program info length (2).
        guard section + 12 <= bytes.count else { return nil }
        let length = Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])
        // The section ends with a 4-byte CRC; it must fit in this packet.
        let end = section + 3 + length - 4
        guard length >= 13, end <= bytes.count else { return nil }
        pcrPID = UInt16(bytes[section + 8] & 0x1F) << 8 | UInt16(bytes[section + 9])
        let infoLength = Int(bytes[section + 10] & 0x0F) << 8 | Int(bytes[section + 11])
        var position = section + 12 + infoLength
        var streams: [Stream] = []
        while position + 5 <= end {
            let type = bytes[position]
            let pid = UInt16(bytes[position + 1] & 0x1F) << 8 | UInt16(bytes[position + 2])
            let esInfo = Int(bytes[position + 3] & 0x0F) << 8 | Int(bytes[position + 4])
            streams.append(Stream(pid: pid, streamType: type))
            position += 5 + esInfo
        }
        self.streams = streams
    }
}
