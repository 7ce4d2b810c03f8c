import MediaFormats
import Testing

/// What a live session reads from the packets it relays: lost packets, a clock that moves, and
/// the tables a joining player needs.
@Suite struct TSProgressMonitorTests {
    func packet(pid: UInt16, counter: UInt8, pcr: UInt64? = nil, start: Bool = false) -> TSPacket {
        var bytes: [UInt8] = [0x47, (start ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | counter]
        if let pcr {
            bytes[3] = 0x30 | counter
            let base = pcr / 300
            bytes += [
                7, 0x10, UInt8(truncatingIfNeeded: base >> 25), UInt8(truncatingIfNeeded: base >> 17),
                UInt8(truncatingIfNeeded: base >> 9), UInt8(truncatingIfNeeded: base >> 1),
                UInt8(truncatingIfNeeded: (base & 1) << 7) | 0x7E, 0,
            ]
        }
        bytes += [UInt8](repeating: 0xFF, count: TSPacket.size - bytes.count)
        return TSPacket(bytes)!
    }

    @Test func aMovingClockIsProgressAndARepeatedOneIsNot() {
        var monitor = TSProgressMonitor()
        let progressed = [
            packet(pid: 0x100, counter: 0, pcr: 27_000_000),
            packet(pid: 0x100, counter: 1),  // no PCR, no progress
            packet(pid: 0x100, counter: 2, pcr: 27_000_000),  // the same clock
            packet(pid: 0x100, counter: 3, pcr: 27_900_000),
            packet(pid: 0x1FFF, counter: 0),  // null packets are nothing
        ].map { monitor.observe($0) }
        #expect(progressed == [true, false, false, true, false])
        #expect(monitor.continuityErrors == 0)
    }

    @Test func lostPacketsAreCountedPerPID() {
        var monitor = TSProgressMonitor()
        _ = monitor.observe(packet(pid: 0x100, counter: 0))
        _ = monitor.observe(packet(pid: 0x101, counter: 7))
        _ = monitor.observe(packet(pid: 0x100, counter: 2))  // 1 lost
        _ = monitor.observe(packet(pid: 0x101, counter: 8))
        _ = monitor.observe(packet(pid: 0x100, counter: 3))
        #expect(monitor.continuityErrors == 1)
        monitor.reset()
        _ = monitor.observe(packet(pid: 0x100, counter: 9))
        #expect(monitor.continuityErrors == 0, "a new upstream is judged on its own packets")
        #expect(monitor.packets == 1)
    }

    /// A short "file" as muxers write one: PAT, PMT, then frames of a video PES (`videoPackets`
    /// packets, the first a unit start with a PCR) and an audio PES of one packet; counters from 0.
    func file(frames: Int, videoPackets: Int = 6, tablesEvery: Int = 5) -> [TSPacket] {
        var counters: [UInt16: UInt8] = [:]
        var result: [TSPacket] = []
        func add(_ pid: UInt16, start: Bool, pcr: UInt64? = nil) {
            let counter = counters[pid, default: 0]
            counters[pid] = (counter + 1) & 0x0F
            result.append(packet(pid: pid, counter: counter, pcr: pcr, start: start))
        }
        for frame in 0..<frames {
            if frame % tablesEvery == 0 {
                add(0x0000, start: true)
                add(0x1000, start: true)
            }
            add(0x100, start: true, pcr: UInt64(frame + 1) * 1_080_000)
            for _ in 1..<videoPackets { add(0x100, start: false) }
            add(0x101, start: true)
        }
        return result
    }

    @Test func aLoopingFileIsSplicesNotLostPackets() {
        // The bytes of one file again and again: every PID's counter jumps at once, at unit starts.
        let round = file(frames: 20)
        var monitor = TSProgressMonitor()
        for _ in 0..<10 {
            for packet in round { _ = monitor.observe(packet) }
        }
        #expect(monitor.continuityErrors == 0)
        #expect(monitor.splices == 9)
        // A file whose counters happen to run on for one PID (1 time in 16) still splices.
        var lucky = round
        for index in lucky.indices where lucky[index].pid == 0x101 {
            lucky[index].continuityCounter = (lucky[index].continuityCounter + 4) & 0x0F
        }
        var again = TSProgressMonitor()
        for packet in round + lucky + round { _ = again.observe(packet) }
        #expect(again.continuityErrors == 0 && again.splices == 2)
    }

    @Test func isolatedGapsStillCountOneEach() {
        // Packets lost here and there (one in 37: every place in a frame in turn) are errors, whether
        // the gap falls inside a PES or just before the next one starts.
        let stream = file(frames: 400)
        var monitor = TSProgressMonitor()
        var lost = 0
        for (index, packet) in stream.enumerated() {
            if index % 37 == 36, index < stream.count - 200 {
                lost += 1
                continue
            }
            _ = monitor.observe(packet)
        }
        #expect(lost > 50)
        #expect(monitor.continuityErrors == lost)
        #expect(monitor.splices == 0)
    }

    @Test func aCutThatLosesPartOfAUnitIsAnErrorEvenAmongJumps() {
        // Every PID jumps, but the video one in the middle of a PES: packets of a picture are gone.
        let round = file(frames: 10)
        var monitor = TSProgressMonitor()
        for packet in round { _ = monitor.observe(packet) }
        // Start the next round in the middle of the first video PES: PAT and PMT jump cleanly, the
        // video PID does not.
        for packet in round.dropFirst(4) { _ = monitor.observe(packet) }
        #expect(monitor.splices == 0)
        #expect(monitor.continuityErrors >= 1)
    }

    @Test func withoutAnyPCRTheStartOfAPESPacketIsProgress() {
        var monitor = TSProgressMonitor()
        let progressed = [
            packet(pid: 0x100, counter: 0, start: true),
            packet(pid: 0x100, counter: 1),
            packet(pid: 0x00, counter: 0, start: true),  // a table is not a picture
        ].map { monitor.observe($0) }
        #expect(progressed == [true, false, false])
    }

    @Test func tablesAreFoundBehindThePointerField() throws {
        // PAT: pointer 0, table 0. PMT on PID 0x1000: pointer 2, two filler bytes, table 2.
        let pat = [0x47, 0x40, 0x00, 0x10, 0x00, 0x00] + [UInt8](repeating: 0xFF, count: 182)
        let pmt = [0x47, 0x50, 0x00, 0x10, 0x02, 0xAA, 0xBB, 0x02] + [UInt8](repeating: 0xFF, count: 180)
        #expect(try #require(TSPacket(pat)).tableID(in: pat) == 0)
        #expect(try #require(TSPacket(pmt)).tableID(in: pmt) == 2)
        // A pointer past the packet's end is no table, and never a read out of bounds.
        let hostile = [0x47, 0x50, 0x00, 0x10, 0xFF] + [UInt8](repeating: 0, count: 183)
        #expect(try #require(TSPacket(hostile)).tableID(in: hostile) == nil)
        let continuation = [0x47, 0x10, 0x00, 0x10, 0x00] + [UInt8](repeating: 0, count: 183)
        #expect(try #require(TSPacket(continuation)).tableID(in: continuation) == nil, "no section starts here")
    }
}
