import MediaFormats
import Testing

/// MPEG-TS packet headers as live sessions will read them: where a player can start, and whether
/// a stream keeps making progress.
@Suite struct TSPacketTests {
    /// A packet: header bytes, then 0xFF stuffing to 188 bytes.
    func packet(_ header: [UInt8]) -> [UInt8] {
        header + [UInt8](repeating: 0xFF, count: TSPacket.size - header.count)
    }

    @Test func headerFieldsAreRead() throws {
        let pat = try #require(TSPacket(packet([0x47, 0x40, 0x00, 0x10, 0x00])))
        #expect(pat.pid == TSPacket.patPID && pat.payloadUnitStart && pat.hasPayload && pat.continuityCounter == 0)
        #expect(!pat.randomAccess && pat.pcr == nil && !pat.transportError && !pat.scrambled)

        // PID 0x100, adaptation field + payload, counter 5; RAI and a PCR of base 1 and extension 2.
        let keyframe = try #require(
            TSPacket(packet([0x47, 0x01, 0x00, 0x35, 0x07, 0x50, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02])))
        #expect(keyframe.pid == 0x100 && keyframe.continuityCounter == 5 && keyframe.hasPayload)
        #expect(keyframe.randomAccess && !keyframe.discontinuity)
        #expect(keyframe.pcr == 1 * 300 + 2)
    }

    @Test func brokenPacketsAreRefused() {
        #expect(TSPacket(packet([0x48, 0x40, 0x00, 0x10])) == nil, "no sync byte")
        #expect(TSPacket(Array(packet([0x47, 0x40, 0x00, 0x10]).prefix(187))) == nil, "short")
        #expect(TSPacket(packet([0x47, 0x01, 0x00, 0x30, 184])) == nil, "adaptation field longer than the packet")
        #expect(TSPacket([UInt8]()) == nil)
    }

    @Test func continuityCountersTellGapsFromProgress() throws {
        func video(_ counter: UInt8, payload: Bool = true, discontinuity: Bool = false) throws -> TSPacket {
            let control: UInt8 = payload ? 0x30 : 0x20
            return try #require(
                TSPacket(packet([0x47, 0x01, 0x00, control | counter, 0x01, discontinuity ? 0x80 : 0x00])))
        }
        #expect(try video(15).isFollowed(by: try video(0)), "the counter wraps")
        #expect(try video(3).isFollowed(by: try video(4)))
        #expect(try !video(3).isFollowed(by: try video(5)), "a lost packet")
        #expect(try video(3).isFollowed(by: try video(9, discontinuity: true)), "announced")
        #expect(try video(3).isFollowed(by: try video(3, payload: false)), "no payload, no step")
        let other = try #require(TSPacket(packet([0x47, 0x02, 0x00, 0x19])))
        #expect(try video(3).isFollowed(by: other), "another PID is not this one's continuity")
    }

    @Test func alignmentSkipsAPartialPacket() {
        let stream = [UInt8](repeating: 0x00, count: 5) + (0..<4).flatMap { _ in packet([0x47, 0x40, 0x00, 0x10]) }
        #expect(TSPacket.alignment(in: stream) == 5)
        // A stray 0x47 before the real boundary is not taken for it.
        var tricky = packet([0x47, 0x40, 0x00, 0x10])
        tricky[3] = 0x47
        let shifted = Array(tricky.dropFirst(2)) + (0..<4).flatMap { _ in packet([0x47, 0x40, 0x00, 0x10]) }
        #expect(TSPacket.alignment(in: shifted) == TSPacket.size - 2)
        #expect(TSPacket.alignment(in: [UInt8](repeating: 0x47, count: 100)) == nil)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            var bytes = (0..<Int.random(in: 0..<400, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if !bytes.isEmpty, Bool.random(using: &generator) { bytes[0] = 0x47 }
            if let packet = TSPacket(bytes) { _ = packet.isFollowed(by: packet) }
            _ = TSPacket.alignment(in: bytes)
        }
    }
}
