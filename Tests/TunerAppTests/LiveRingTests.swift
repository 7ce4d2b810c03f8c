import NIOCore
import Testing

@testable import TunerApp

/// The live session's memory: a bounded window of packets that joiners enter at a keyframe,
/// and the cutter that turns an upstream's reads into packets.
@Suite struct LiveRingTests {
    /// `count` packets of PID 0x100 whose first byte after the header numbers them.
    func packets(_ count: Int, from first: Int = 0, keyframeEvery: Int? = nil) -> ByteBuffer {
        var buffer = ByteBuffer()
        for index in first..<first + count {
            let keyframe = keyframeEvery.map { index % $0 == 0 } ?? false
            var bytes: [UInt8] = [0x47, 0x01, 0x00, keyframe ? 0x30 : 0x10 | UInt8(index & 0x0F)]
            if keyframe { bytes += [1, 0x40] }
            bytes.append(UInt8(truncatingIfNeeded: index))
            bytes += [UInt8](repeating: 0xFF, count: 188 - bytes.count)
            buffer.writeBytes(bytes)
        }
        return buffer
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
        #expect(ring.tablesPrefix?.readableBytes == 188)
        #expect(ring.tablesPrefix == pat)
        // Without keyframes, a PAT; without either, the end.
        var plain = LiveRing(capacity: 1 << 20)
        plain.append(packets(5), marks: [])
        #expect(plain.joinOffset == plain.end && !plain.hasKeyframe)
    }

    @Test func thePacketizerLinesUpPacketsAcrossReadsAndSkipsGarbage() {
        var cutter = LivePacketizer()
        var whole = packets(20, keyframeEvery: 5)
        var garbage = ByteBuffer(bytes: [0x00, 0x47, 0x12])  // a stray sync byte in front
        garbage.writeBuffer(&whole)
        // Delivered in awkward pieces: 100 bytes, then the rest.
        let first = cutter.consume(garbage.getSlice(at: 0, length: 100)!)
        let rest = cutter.consume(garbage.getSlice(at: 100, length: garbage.readableBytes - 100)!)
        #expect(first.packets.readableBytes == 0, "too little to trust an alignment")
        #expect(rest.packets.readableBytes == 20 * 188)
        #expect(rest.marks.filter { $0.mark == .keyframe }.map(\.packet) == [0, 5, 10, 15])
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
