import MediaFormats
import NIOCore
import Testing

@testable import LiveTV
@testable import TunerApp

/// The live session's memory: a bounded window of packets that joiners enter at a keyframe,
/// and the cutter that turns an upstream's reads into packets.
@Suite struct LiveRingTests {
    /// `count` packets of PID 0x100 whose first byte after the header numbers them.
    func packets(_ count: Int, from first: Int = 0, keyframeEvery: Int? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        for index in first..<first + count {
            let keyframe = keyframeEvery.map { index % $0 == 0 } ?? false
            // A keyframe starts a PES (PUSI) and carries the random access flag.
            var bytes: [UInt8] = [0x47, keyframe ? 0x41 : 0x01, 0x00, keyframe ? 0x30 : 0x10 | UInt8(index & 0x0F)]
            if keyframe { bytes += [1, 0x40] }
            bytes.append(UInt8(truncatingIfNeeded: index))
            bytes += [UInt8](repeating: 0xFF, count: 188 - bytes.count)
            buffer.writeBytes(bytes)
        }
        return buffer
    }

    /// A PMT on PID 0x1000 listing PID 0x100 as H.264 video and 0x101 as AAC audio.
    static let programMap: [UInt8] = {
        let section: [UInt8] = [
            0x02, 0xB0, 23, 0x00, 0x01, 0xC1, 0x00, 0x00, 0xE1, 0x00, 0xF0, 0x00,
            0x1B, 0xE1, 0x00, 0xF0, 0x00, 0x0F, 0xE1, 0x01, 0xF0, 0x00, 0, 0, 0, 0,
        ]
        let packet: [UInt8] = [0x47, 0x50, 0x00, 0x10, 0x00] + section
        return packet + [UInt8](repeating: 0xFF, count: 188 - packet.count)
    }()

    @Test func theProgramMapSaysWhichPIDsAreVideo() throws {
        let map = try #require(TSProgramMap(packet: Self.programMap))
        #expect(map.pcrPID == 0x100)
        #expect(map.streams.map(\.pid) == [0x100, 0x101] && map.videoPIDs == [0x100])
        // A section longer than the packet, or no PMT at all, is nil: never a read out of bounds.
        var long = Self.programMap
        long[7] = 0xFF
        #expect(TSProgramMap(packet: long) == nil)
        #expect(TSProgramMap(packet: Array(Self.programMap.prefix(100))) == nil)
    }

    @Test func oldBytesFallOutAndReadsAreSlicesOfWhatIsHeld() {
        var ring = LiveRing(capacity: 100 * 188)
        ring.append(packets(64), marks: [])
        ring.append(packets(64, from: 64), marks: [(0, .keyframe)])
        #expect(ring.start == 64 * 188, "the first read fell out")
        #expect(ring.end == 128 * 188)
        #expect(ring.read(from: 0, limit: 1000).isEmpty, "gone")
        let read = ring.read(from: 100 * 188, limit: 188 * 3)
        #expect(read.reduce(0) { $0 + $1.readableBytes } == 188 * 3)
        #expect(read.first?.getInteger(at: read.first!.readerIndex + 4, as: UInt8.self) == 100)
        #expect(ring.joinOffset == 64 * 188, "the keyframe held")
    }

    @Test func joinersStartAtTheNewestKeyframeWithTheTablesBeforeIt() {
        var ring = LiveRing(capacity: 1 << 20)
        let pat = ByteBuffer(bytes: [0x47, 0x40, 0x00, 0x10, 0x00, 0x00] + [UInt8](repeating: 0xFF, count: 182))
        ring.append(pat, marks: [(0, .pat)])
        ring.append(packets(10), marks: [(2, .keyframe), (7, .keyframe)])
        #expect(ring.hasKeyframe)
        #expect(ring.joinOffset == 188 + 7 * 188)
        #expect(ring.tablesPrefix(before: ring.joinOffset) == pat)
        // Without keyframes, a PAT; without either, the end.
        var plain = LiveRing(capacity: 1 << 20)
        plain.append(packets(5), marks: [])
        #expect(plain.joinOffset == plain.end && !plain.hasKeyframe)
    }

    @Test func thePacketizerLinesUpPacketsAcrossReadsAndSkipsGarbage() {
        var cutter = LivePacketizer()
        var whole = packets(20, keyframeEvery: 5)
        var garbage = ByteBuffer(bytes: [0x00, 0x47, 0x12])  // a stray sync byte in front
        garbage.writeBytes(Self.programMap)  // keyframes count on the PIDs it names as video
        garbage.writeBuffer(&whole)
        // Delivered in awkward pieces: 100 bytes, then the rest.
        let first = cutter.consume(garbage.getSlice(at: 0, length: 100)!)
        let rest = cutter.consume(garbage.getSlice(at: 100, length: garbage.readableBytes - 100)!)
        #expect(first.packets.readableBytes == 0, "too little to trust an alignment")
        #expect(rest.packets.readableBytes == 21 * 188)
        #expect(rest.marks.filter { $0.mark == .keyframe }.map(\.packet) == [1, 6, 11, 16])
        #expect(rest.marks.filter { $0.mark == .pmt }.map(\.packet) == [0])
        #expect(cutter.format == .transportStream)
        #expect(cutter.discarded == 3)
    }

    @Test func bytesThatAreNotPacketsAreRelayedAsTheyAre() {
        var cutter = LivePacketizer()
        let text = ByteBuffer(string: String(repeating: "ID3 not a transport stream ", count: 40))
        let output = cutter.consume(text)
        #expect(cutter.format == .other)
        #expect(output.packets == text, "relayed whole")
        let short = LivePacketizer()
        var tiny = short
        _ = tiny.consume(ByteBuffer(string: "hello"))
        #expect(tiny.flush().packets == ByteBuffer(string: "hello"), "an answer shorter than four packets")
    }

    @Test func aRingNeverHoldsLessThan64Packets() {
        let ring = LiveRing(capacity: 1)
        #expect(ring.capacity == 64 * 188)
    }
}
