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
        #expect(monitor.continuityErrors == 1, "a new upstream starts its own counters")
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
