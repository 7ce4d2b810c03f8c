import Foundation
import Logging
import MediaFormats
import NIOCore
import Testing

@testable import LiveTV
@testable import TunerApp

/// The time-shift window on disk: segments cut at keyframes once long enough, each starting with
/// the newest PAT and PMT; trimmed by duration and bytes; taken over after a restart (a segment a
/// crash cut short included); read back as one stream from an instant, over the segment being
/// written, to an instant or across the window's gaps only when asked.
@Suite struct TimeshiftWindowTests {
    static let base: Int64 = 1_800_000_000_000

    /// A folder of its own, removed by the caller.
    static func folder() -> String {
        NSTemporaryDirectory() + "timeshift-window-" + UUID().uuidString
    }

    static func window(
        _ folder: String, windowSeconds: Double = 3600, maxBytes: Int64 = 1 << 30
    ) -> TimeshiftWindow {
        var settings = TimeshiftSettings()
        settings.mode = .all
        settings.windowSeconds = windowSeconds
        settings.maxBytes = maxBytes
        settings.minimumFreeBytes = 0
        return TimeshiftWindow(channelID: 7, directory: folder, settings: settings, logger: Logger(label: "test"))
    }

    /// One second of stream: a PAT, a PMT, a keyframe packet and `filler` packets after it, each
    /// numbered by `second` in its last byte.
    static func second(_ second: Int, filler: Int = 10) -> (ByteBuffer, [(packet: Int, mark: LiveRing.Mark)]) {
        var buffer = ByteBuffer()
        func packet(_ header: [UInt8]) {
            var bytes = header
            bytes += [UInt8](repeating: 0xFF, count: 187 - bytes.count)
            bytes.append(UInt8(truncatingIfNeeded: second))
            buffer.writeBytes(bytes)
        }
        packet([0x47, 0x40, 0x00, 0x10, 0x00])  // PAT
        packet([0x47, 0x50, 0x00, 0x10, 0x00])  // PMT
        packet([0x47, 0x41, 0x00, 0x30, 1, 0x40])  // keyframe
        for _ in 0..<filler { packet([0x47, 0x01, 0x00, 0x10]) }
        return (buffer, [(0, .pat), (1, .pmt), (2, .keyframe)])
    }

    /// Feeds seconds `range` of stream, second `n` arriving at `base + n` s.
    static func feed(_ window: TimeshiftWindow, _ range: Range<Int>, filler: Int = 10) async {
        for index in range {
            let (buffer, marks) = second(index, filler: filler)
            window.receive(buffer, marks: marks, at: base + Int64(index) * 1000)
        }
        await window.settle()
    }

    @Test func segmentsStartAtTheFirstKeyframeFourSecondsOnWithTheTables() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let window = Self.window(folder)
        await Self.feed(window, 0..<13)
        let segments = window.segments
        #expect(segments.map(\.start) == [0, 4, 8, 12].map { Self.base + $0 * 1000 })
        #expect(segments.dropLast().allSatisfy { $0.duration == 4000 && !$0.isOpen })
        #expect(segments.last?.isOpen == true, "the newest one is being written")
        // A complete segment is 4 seconds of 13 packets, plus the PAT and PMT before its keyframe.
        let path = try #require(window.completePath(named: segments[1].fileName))
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count == (4 * 13 + 2) * 188)
        #expect(Array(bytes.prefix(4)) == [0x47, 0x40, 0x00, 0x10], "a PAT first")
        #expect(bytes[188 + 1] == 0x50, "then the PMT")
        #expect(bytes[2 * 188 + 1] == 0x41, "then the keyframe")
        #expect(bytes[2 * 188 + 187] == 4, "of second 4")
        // The open segment is not served as a file, and no other name is.
        #expect(window.completePath(named: segments[3].fileName) == nil)
        #expect(window.completePath(named: "../x.ts") == nil && TimeshiftSegment(fileName: "../1-2.ts") == nil)
        #expect(
            TimeshiftSegment(fileName: "1-2-3.ts") == nil && TimeshiftSegment(fileName: "99999999999999999.ts") == nil)
    }

    @Test func theWindowKeepsItsDurationAndItsBytes() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let byTime = Self.window(folder + "/time", windowSeconds: 60)
        await Self.feed(byTime, 0..<101)
        let kept = byTime.segments
        // The newest ends at 100 s: what ended more than 60 s before is gone, from disk too.
        #expect(kept.first.map { $0.end >= Self.base + 40_000 } == true, "\(kept.map(\.start))")
        #expect(kept.first.map { $0.end - 4000 < Self.base + 40_000 } == true)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/time")
        #expect(files.count == kept.count)

        let segmentBytes = Int64((4 * 13 + 2) * 188)
        let byBytes = Self.window(folder + "/bytes", maxBytes: segmentBytes * 3)
        await Self.feed(byBytes, 0..<41)
        let total = byBytes.segments.reduce(Int64(0)) { $0 + $1.bytes }
        #expect(total <= segmentBytes * 3, "\(byBytes.segments)")
        #expect(byBytes.segments.count >= 2)
    }

    @Test func aRestartTakesTheWindowOverAndSaysWhereTheStreamBrokeOff() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = Self.window(folder)
        await Self.feed(first, 0..<10)
        let open = try #require(first.segments.last)
        #expect(open.isOpen)
        // As after a crash: a second window on the folder takes it over, the open segment ending at
        // its file's last change.
        let second = Self.window(folder)
        let taken = second.segments
        #expect(taken.count == first.segments.count && taken.allSatisfy { !$0.isOpen })
        #expect(taken.last?.start == open.start)
        await Self.feed(second, 20..<30)
        let after = second.segments
        let resumed = try #require(after.firstIndex { $0.start == Self.base + 20_000 })
        #expect(TimeshiftReader.isGap(between: after[resumed - 1], and: after[resumed]))
        #expect(!TimeshiftReader.isGap(between: after[0], and: after[1]))
        let playlist = TimeshiftPlayback.playlist(after, ended: true)
        #expect(playlist.components(separatedBy: "#EXT-X-DISCONTINUITY").count == 2, "\(playlist)")
        #expect(playlist.contains("#EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:00.000Z"), "\(playlist)")
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!playlist.contains(after.last!.fileName), "the open segment is not listed")
    }

    /// Every byte a reader hands out, as the seconds its packets number.
    static func seconds(_ buffers: [ByteBuffer]) -> [Int] {
        var all = ByteBuffer()
        for var buffer in buffers { all.writeBuffer(&buffer) }
        var seconds: [Int] = []
        var offset = all.readerIndex
        while offset + 188 <= all.writerIndex {
            // Keyframe packets only: one a second.
            if all.getInteger(at: offset + 1, as: UInt8.self) == 0x41,
                let second = all.getInteger(at: offset + 187, as: UInt8.self)
            {
                seconds.append(Int(second))
            }
            offset += 188
        }
        return seconds
    }

    @Test func aReaderStartsAtTheSegmentHoldingAnInstantAndFollowsTheWindow() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let window = Self.window(folder)
        await Self.feed(window, 0..<10)

        // A span: from second 5 (in the segment of 4…7) to second 8 (the segment starting there is
        // not read).
        var span = TimeshiftReader(window: window, from: Self.base + 5000, until: Self.base + 8000)
        var read: [ByteBuffer] = []
        while let chunk = try await span.next() { read.append(chunk) }
        #expect(Self.seconds(read) == [4, 5, 6, 7])
        #expect(span.startedAt == Self.base + 4000)

        // Following: the open segment as it grows, then the ones after it.
        var following = TimeshiftReader(window: window, from: Self.base + 9000)
        var got: [ByteBuffer] = []
        while Self.seconds(got).count < 2, let chunk = try await following.next() { got.append(chunk) }
        #expect(Self.seconds(got) == [8, 9])
        await Self.feed(window, 10..<14)
        while Self.seconds(got).count < 6, let chunk = try await following.next() { got.append(chunk) }
        #expect(Self.seconds(got) == [8, 9, 10, 11, 12, 13])

        // Before the window: its first segment; in a gap: the segment after it.
        #expect(TimeshiftReader.first(of: window.segments, from: Self.base - 60_000)?.start == Self.base)
        window.breakOff(at: Self.base + 14_000)
        await Self.feed(window, 30..<35)
        #expect(TimeshiftReader.first(of: window.segments, from: Self.base + 20_000)?.start == Self.base + 30_000)

        // A browser's reader stops at the gap; a plain one reads across it.
        var browser = TimeshiftReader(
            window: window, from: Self.base + 12_000, until: Self.base + 40_000, endsAtGaps: true)
        var plain = TimeshiftReader(window: window, from: Self.base + 12_000, until: Self.base + 40_000)
        var (stopped, across) = ([ByteBuffer](), [ByteBuffer]())
        while let chunk = try await browser.next() { stopped.append(chunk) }
        while let chunk = try await plain.next() { across.append(chunk) }
        #expect(Self.seconds(stopped) == [12, 13])
        #expect(Self.seconds(across) == [12, 13, 30, 31, 32, 33], "the open segment of 34 is not in a span")
    }

    @Test func catchupMarksKeepDaysAndTheSweepDropsWhatIsNoLongerKept() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var settings = TimeshiftSettings()
        settings.mode = .off
        settings.windowSeconds = 60
        settings.maxBytes = 16 << 20
        settings.minimumFreeBytes = 0
        let timeshift = Timeshift(settings: settings, directory: folder, logger: Logger(label: "test"))
        // Off, a channel keeps nothing unless it is marked.
        #expect(!timeshift.keeps(channelID: 1, isFavourite: true))
        timeshift.setCatchup([1: 3])
        #expect(timeshift.keeps(channelID: 1, isFavourite: false) && timeshift.catchupDays(of: 1) == 3)
        let marked = try #require(timeshift.windowForSession(channelID: 1, isFavourite: false))
        #expect(marked.settings.windowSeconds == 3 * 86_400 && marked.settings.maxBytes == .max)
        #expect(timeshift.windowForSession(channelID: 2, isFavourite: true) == nil)
        // A window of an unmarked channel left on disk by an earlier run.
        let stale = Self.window(folder + "/2")
        await Self.feed(stale, 0..<9)
        await Self.feed(marked, 0..<9)
        timeshift.sweep()
        await marked.settle()
        #expect(!FileManager.default.fileExists(atPath: folder + "/2"), "off and unmarked: gone")
        #expect(FileManager.default.fileExists(atPath: folder + "/1"))
        // The sweep ages what it keeps by the clock: these segments are from 2027 (the tests'
        // clock), so days of catch-up keep them all.
        #expect(marked.segments.count == 3)

        // Unmarked, the window goes back to the server's limits at once.
        timeshift.setCatchup([:])
        await marked.settle()
        #expect(marked.settings.windowSeconds == 60 && marked.settings.maxBytes == 16 << 20)
        #expect(!timeshift.keeps(channelID: 1, isFavourite: true))
    }

    @Test func aWindowAgesByTheClockWhenItsChannelStopped() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let window = Self.window(folder, windowSeconds: 60)
        await Self.feed(window, 0..<9)
        window.breakOff(at: Self.base + 9000)
        // A minute and more after the newest segment ended, nothing is left; before, all.
        window.age(now: Self.base + 60_000)
        await window.settle()
        #expect(window.segments.count == 3)
        window.age(now: Self.base + 9000 + 61_000)
        await window.settle()
        #expect(window.segments.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty)
    }
}
