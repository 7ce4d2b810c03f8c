import Foundation
import Logging
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import Streaming
import Testing
import TunerAPI

@testable import LiveTV
@testable import TunerApp

/// A live session after a switch: the new upstream is judged on its own packets, and viewers go
/// on with a clean join (tables, a keyframe, the discontinuity flagged on every PID).
@Suite struct LiveFailoverTests {
    /// An endless transport stream as a provider sends it: PAT and PMT (PID 0x1000: video 0x100,
    /// audio 0x101), then frames of a 6-packet video PES (a PCR on its first packet, a keyframe
    /// every `keyframeEvery` frames) and a one-packet audio PES.
    struct Stream {
        var counters: [UInt16: UInt8] = [:]
        var frame = 0
        var keyframeEvery = 5
        /// Counters of video packets in the middle of a PES are skipped by one every this many frames.
        var loseEvery: Int?

        static let pat: [UInt8] =
            [0x47, 0x40, 0x00, 0x10, 0x00, 0x00, 0xB0, 0x0D, 0x00, 0x01, 0xC1, 0x00, 0x00, 0x00, 0x01, 0xF0, 0x00]
            + [0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 167)

        mutating func packet(_ pid: UInt16, start: Bool, adaptation: [UInt8] = [], fill: UInt8 = 0xAA) -> [UInt8] {
            let counter = counters[pid, default: 0]
            counters[pid] = (counter + 1) & 0x0F
            var bytes: [UInt8] = [0x47, (start ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | counter]
            if !adaptation.isEmpty {
                bytes[3] |= 0x20
                bytes += [UInt8(adaptation.count)] + adaptation
            }
            return bytes + [UInt8](repeating: fill, count: TSPacket.size - bytes.count)
        }

        /// The next frame's packets (with the tables first every `keyframeEvery` frames).
        mutating func next() -> [UInt8] {
            defer { frame += 1 }
            var bytes: [UInt8] = []
            let keyframe = frame % keyframeEvery == 0
            if keyframe {
                var pat = Self.pat
                pat[3] = 0x10 | counters[0, default: 0]
                counters[0] = (counters[0, default: 0] + 1) & 0x0F
                bytes += pat
                var pmt = LiveRingTests.programMap
                pmt[3] = 0x10 | counters[0x1000, default: 0]
                counters[0x1000] = (counters[0x1000, default: 0] + 1) & 0x0F
                bytes += pmt
            }
            let base = UInt64(frame) * 3600
            let pcr: [UInt8] = [
                (keyframe ? 0x50 : 0x10), UInt8(truncatingIfNeeded: base >> 25), UInt8(truncatingIfNeeded: base >> 17),
                UInt8(truncatingIfNeeded: base >> 9), UInt8(truncatingIfNeeded: base >> 1),
                UInt8(truncatingIfNeeded: (base & 1) << 7) | 0x7E, 0,
            ]
            bytes += packet(0x100, start: true, adaptation: pcr, fill: keyframe ? 0xEE : 0xAA)
            for index in 1..<6 {
                if let loseEvery, frame % loseEvery == 0, index == 3 {
                    counters[0x100] = (counters[0x100, default: 0] + 1) & 0x0F
                }
                bytes += packet(0x100, start: false)
            }
            bytes += packet(0x101, start: true)
            return bytes
        }

        mutating func frames(_ count: Int) -> ByteBuffer {
            var buffer = ByteBuffer()
            for _ in 0..<count { buffer.writeBytes(next()) }
            return buffer
        }
    }

    static func packets(_ buffer: ByteBuffer) -> [TSPacket] {
        let bytes = Array(buffer.readableBytesView)
        return stride(from: 0, to: bytes.count, by: TSPacket.size).compactMap {
            TSPacket(bytes[$0..<$0 + TSPacket.size])
        }
    }

    @Test func afterASwitchViewersGetTablesAKeyframeAndTheDiscontinuityFlagged() {
        var cutter = LivePacketizer()
        var first = Stream()
        _ = cutter.consume(first.frames(12))
        // The second upstream joins in the middle of a group of pictures.
        var second = Stream()
        second.counters = [0: 9, 0x1000: 9, 0x100: 3, 0x101: 7]
        second.frame = 2
        cutter.reset()
        let output = cutter.consume(second.frames(10))
        let packets = Self.packets(output.packets)
        let pids = packets.map(\.pid)
        // Nothing of frames 2 to 4 (no keyframe yet); then PAT and PMT, each after a packet that
        // only carries the indicator; then the keyframe, flagged in its own adaptation field.
        #expect(Array(pids.prefix(6)) == [0, 0, 0x1000, 0x1000, 0x100, 0x100], "\(pids)")
        #expect(packets[0].discontinuity && !packets[0].hasPayload && packets[1].payloadUnitStart)
        #expect(packets[0].isFollowed(by: packets[1]), "the flag's packet runs into the table's counter")
        #expect(packets[2].discontinuity && !packets[2].hasPayload && packets[3].payloadUnitStart)
        #expect(packets[4].randomAccess && packets[4].discontinuity && packets[4].payloadUnitStart)
        #expect(!packets[5].discontinuity, "only the first packet of each PID")
        let audio = packets.filter { $0.pid == 0x101 }
        // Seven audio packets, the first after one that carries the flag and runs into its counter.
        #expect(audio.count == 8 && audio.filter(\.discontinuity).count == 1)
        #expect(audio.first?.discontinuity == true && audio[0].isFollowed(by: audio[1]))
        let flagged = packets.filter(\.discontinuity).count
        #expect(flagged == 4, "PAT, PMT, video and audio once each")
        // The keyframe is a join point; the tables held back are marked for the ring.
        #expect(output.marks.map(\.mark) == [.pat, .pmt, .keyframe, .pat, .pmt, .keyframe])
        #expect(output.marks.first?.packet == 1 && output.marks[2].packet == 4)
        #expect(cutter.monitor.continuityErrors == 0 && cutter.monitor.packets == 10 * 7 + 2 * 2)
    }

    @Test func theFirstUpstreamIsRelayedAsItComes() {
        var cutter = LivePacketizer()
        var stream = Stream()
        stream.frame = 2
        let output = cutter.consume(stream.frames(5))
        #expect(output.packets.readableBytes == (5 * 7 + 2) * TSPacket.size)
        let flagged = Self.packets(output.packets).filter(\.discontinuity)
        #expect(flagged.isEmpty)
    }

    @Test func heldBackPacketsStillShowTheUpstreamIsATransportStream() {
        var cutter = LivePacketizer()
        var stream = Stream()
        _ = cutter.consume(stream.frames(3))
        cutter.reset()
        stream.frame = 1
        let held = cutter.consume(stream.frames(3))
        #expect(held.packets.readableBytes == 0 && held.sawPackets && held.progressed)
    }

    /// An upstream that loops a short file verbatim (every PID's counter jumps each round) is not
    /// garbled: with a limit of five errors, forty rounds a second leave it alone.
    @Test func anUpstreamLoopingAFileIsNotLeft() async throws {
        var settings = LiveSettings()
        settings.continuityErrorLimit = 5
        // Only the splice rule is judged here: a loaded machine that pauses this process must not
        // turn a late round into a stall (the error window grows too, which only makes the limit
        // of five errors stricter).
        settings.stallSeconds = 600
        settings.progressSeconds = 600
        let session = LiveSession(
            id: "loop", channelID: 1, channelName: "One", profile: .direct, settings: settings,
            logger: Logger(label: "test"))
        let rounds = NIOLockedValueBox(0)
        let looping = LiveUpstream(channelID: 1, sourceID: 1, sourceName: "A", label: "A") { deliver in
            var stream = Stream()
            let round = stream.frames(10)
            while !Task.isCancelled {
                deliver(round)
                rounds.withLockedValue { $0 += 1 }
                try await Task.sleep(for: .milliseconds(25))
            }
        }
        session.prepare(looping)
        _ = session.join(
            LiveViewerInfo(address: "127.0.0.1", user: nil, outputProfile: nil, joinedAt: Date(), bytes: 0),
            priority: 0)
        session.start(looping, next: { _, _ in nil }, work: BackgroundWork(), onEnd: { _ in })
        // Sixty rounds (1.5 s unloaded): six looks of the watchdog at least, each after several
        // rounds. Counted, not timed, so a loaded machine only makes it slower.
        // The deadline only guards a hung process: a session that left the upstream ends the wait
        // at once (its end reason fails the test below).
        let deadline = ContinuousClock.now + .seconds(900)
        while rounds.withLockedValue({ $0 }) < 60, session.endReason == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let info = session.info
        #expect(rounds.withLockedValue { $0 } >= 60, "splices were seen")
        #expect(session.endReason == nil, "\(session.endReason ?? "")")
        #expect(info.failovers.isEmpty && info.continuityErrors == 0)
        await session.stopAndWait("done")
    }

    /// A session whose first upstream lost packets (isolated, in the middle of PES packets: garbled)
    /// switches to a clean second one and stays on it: the first one's errors are not the second's.
    @Test func theAlternativeIsNotChargedWithTheFirstUpstreamsErrors() async throws {
        var settings = LiveSettings()
        settings.continuityErrorLimit = 40
        // Continuity errors are the only reason to leave here: a loaded machine that pauses this
        // process must not make the first upstream look stalled before its errors are counted.
        settings.stallSeconds = 600
        settings.progressSeconds = 600
        let session = LiveSession(
            id: "test", channelID: 1, channelName: "One", profile: .direct, settings: settings,
            logger: Logger(label: "test"))
        let secondStarted = NIOLockedValueBox(false)
        let garbled = LiveUpstream(channelID: 1, sourceID: 1, sourceName: "A", label: "A") { deliver in
            var stream = Stream()
            stream.loseEvery = 1
            // 60 lost packets: over the limit, so this upstream is left for that reason.
            deliver(stream.frames(60))
            try await Task.sleep(for: .seconds(60))
        }
        let clean = LiveUpstream(channelID: 2, sourceID: 2, sourceName: "B", label: "B") { deliver in
            var stream = Stream()
            while !Task.isCancelled {
                deliver(stream.frames(5))
                secondStarted.withLockedValue { $0 = true }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        session.prepare(garbled)
        let viewer = try #require(
            session.join(
                LiveViewerInfo(address: "127.0.0.1", user: nil, outputProfile: nil, joinedAt: Date(), bytes: 0),
                priority: 0))
        session.start(
            garbled, next: { _, failures in failures == 1 ? clean : nil }, work: BackgroundWork(), onEnd: { _ in })
        var received: [TSPacket] = []
        while !received.contains(where: { $0.pid == 0x100 && $0.discontinuity }) {
            guard let parts = await session.read(viewer) else { break }
            for part in parts { received += Self.packets(part) }
        }
        // Several looks of the watchdog (four a second) at the second upstream's counters.
        try await Task.sleep(for: .milliseconds(1500))
        let info = session.info
        #expect(secondStarted.withLockedValue { $0 })
        #expect(session.endReason == nil, "\(session.endReason ?? "")")
        #expect(info.failovers.count == 1 && info.failovers.first?.reason.contains("continuity errors") == true)
        #expect(info.upstreamChannelID == 2)
        #expect(info.continuityErrors == 0)
        await session.stopAndWait("done")
    }
}
