import Catalog
import Foundation
import NIOCore
import Testing
import TunerAPI

@testable import TunerApp

/// The DVR's planning on plain values: which programmes each kind of rule wants, repeats, one
/// recording per programme however many ask, the conflicts computed ahead, and safe file names.
@Suite struct RecordingPlannerTests {
    static let now: Int64 = 1_800_000_000
    static let channels: [Int64: RecordingPlanner.Channel] = [
        1: .init(id: 1, name: "One"), 2: .init(id: 2, name: "Two"), 3: .init(id: 3, name: "Three"),
    ]

    static func programme(
        _ id: Int64, _ start: Int64, _ title: String, minutes: Int64 = 30, season: Int? = nil, episode: Int? = nil,
        subtitle: String? = nil, description: String? = nil
    ) -> GuideProgramme {
        GuideProgramme(
            id: id, epgID: "x", start: now + start, stop: now + start + minutes * 60, title: title, subtitle: subtitle,
            description: description, season: season, episode: episode)
    }

    static var planner: RecordingPlanner {
        var planner = RecordingPlanner()
        planner.timeZone = TimeZone(identifier: "UTC")!
        return planner
    }

    @Test func aSeriesRuleForNewEpisodesSkipsTheRepeatAndEpisodesRecordedBefore() {
        let guide: [Int64: [GuideProgramme]] = [
            1: [
                Self.programme(1, 600, "Dr. Who", season: 1, episode: 2),
                Self.programme(2, 4000, "The News"),
                // The same episode again: a repeat.
                Self.programme(3, 8000, "DR WHO", season: 1, episode: 2),
                Self.programme(4, 12000, "Dr Who", season: 1, episode: 3),
            ],
            2: [Self.programme(5, 9000, "Dr Who", subtitle: "The Day")],
        ]
        let rule = RecordingRule(id: 7, kind: .series, name: "Dr Who", title: "dr who", newOnly: true)
        let planned = Self.planner.wanted(
            rules: [rule], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
        #expect(planned.map(\.programmeID) == [1, 5, 4])
        #expect(planned.allSatisfy { $0.ruleIDs == [7] })

        // Episode 3 was recorded last week: only the other two are new.
        var old = Self.planner.wanted(
            rules: [rule], guide: [1: [Self.programme(9, -7 * 86_400 + 60, "Dr Who", season: 1, episode: 3)]],
            channels: Self.channels, recorded: [], now: Self.now - 7 * 86_400)[0]
        old.state = .done
        let again = Self.planner.wanted(
            rules: [rule], guide: guide, channels: Self.channels, recorded: [old], now: Self.now)
        #expect(again.map(\.programmeID) == [1, 5])

        // Planning again with what the first plan stored keeps the same recordings (a scheduled
        // recording is not a repeat of itself).
        let replanned = Self.planner.wanted(
            rules: [rule], guide: guide, channels: Self.channels, recorded: planned, now: Self.now)
        #expect(replanned.map(\.identity) == planned.map(\.identity))

        // Without newOnly every airing is recorded.
        var every = rule
        every.newOnly = false
        #expect(
            Self.planner.wanted(rules: [every], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
                .count == 4)
    }

    @Test func aSeriesRuleOnOneChannelAndAnEpisodeWithoutNumbersIsAlwaysNew() {
        let guide: [Int64: [GuideProgramme]] = [
            1: [Self.programme(1, 600, "Quiz"), Self.programme(2, 4000, "Quiz")],
            2: [Self.programme(3, 600, "Quiz")],
        ]
        let rule = RecordingRule(id: 1, kind: .series, name: "Quiz", channelIDs: [1], title: "Quiz", newOnly: true)
        let planned = Self.planner.wanted(
            rules: [rule], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
        // Nothing tells the two airings apart: both are recorded rather than none.
        #expect(planned.map(\.programmeID) == [1, 2])
    }

    @Test func keywordRulesMatchWholeWordsOrAnywhereWithoutCaseOrAccents() {
        let guide: [Int64: [GuideProgramme]] = [
            1: [
                Self.programme(1, 600, "Formula 1: Grand Prix"),
                Self.programme(2, 4000, "Prixe de Paris"),
                Self.programme(3, 8000, "Evening", description: "Live from the GRAND PRÍX circuit"),
            ]
        ]
        let word = RecordingRule(id: 1, kind: .keyword, name: "prix", keyword: "Príx", keywordMatch: .word)
        #expect(
            Self.planner.wanted(rules: [word], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
                .map(\.programmeID) == [1])
        var described = word
        described.searchDescription = true
        #expect(
            Self.planner.wanted(rules: [described], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
                .map(\.programmeID) == [1, 3])
        var anywhere = word
        anywhere.keywordMatch = .contains
        #expect(
            Self.planner.wanted(rules: [anywhere], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
                .map(\.programmeID) == [1, 2])
        let exact = RecordingRule(id: 1, kind: .keyword, name: "x", keyword: "prixe de paris", keywordMatch: .exact)
        #expect(
            Self.planner.wanted(rules: [exact], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
                .map(\.programmeID) == [2])
    }

    @Test func aTimeRuleRecordsOnItsWeekdaysWhateverTheGuideSays() throws {
        // 1_800_000_000 is Friday 2027-01-15 08:00 UTC.
        let rule = RecordingRule(
            id: 3, kind: .time, name: "Morning news", channelIDs: [2], weekdays: [1, 5], time: "09:30",
            durationMinutes: 15, paddingAfterSeconds: 60)
        let planned = Self.planner.wanted(
            rules: [rule], guide: [:], channels: Self.channels, recorded: [], now: Self.now)
        let starts = planned.map(\.start)
        // This Friday 09:30 and Monday 09:30; next Friday's is beyond the week ahead.
        #expect(starts == [Self.now + 5400, Self.now + 5400 + 3 * 86_400])
        #expect(planned.allSatisfy { $0.channelID == 2 && $0.stop - $0.start == 900 && $0.recordStop == $0.stop + 60 })
        #expect(planned.allSatisfy { $0.title == "Morning news" && $0.programmeID == nil })
    }

    @Test func twoRulesWantingOneProgrammeMakeOneRecordingListingBoth() {
        let guide: [Int64: [GuideProgramme]] = [1: [Self.programme(1, 600, "Match of the Day")]]
        let series = RecordingRule(
            id: 1, kind: .series, name: "Match", title: "Match of the Day", paddingBeforeSeconds: 60, priority: 1)
        let keyword = RecordingRule(
            id: 2, kind: .keyword, name: "match", keyword: "match", paddingAfterSeconds: 300, priority: 5)
        let planned = Self.planner.wanted(
            rules: [series, keyword], guide: guide, channels: Self.channels, recorded: [], now: Self.now)
        #expect(planned.count == 1)
        #expect(planned.first?.ruleIDs == [1, 2])
        #expect(planned.first?.priority == 5)
        #expect(planned.first?.recordStart == Self.now + 600 - 60)
        #expect(planned.first?.recordStop == Self.now + 600 + 1800 + 300)
    }

    @Test func theLowerPriorityRecordingLosesWhenTheAccountAllowsOneChannel() {
        typealias Slot = RecordingConflicts.Slot
        let slots = [
            Slot(id: 1, channelID: 1, sourceID: 9, start: 0, stop: 100, priority: 1, title: "Low"),
            Slot(id: 2, channelID: 2, sourceID: 9, start: 50, stop: 150, priority: 5, title: "High"),
            // The same channel as the winner: it shares its connection.
            Slot(id: 3, channelID: 2, sourceID: 9, start: 60, stop: 70, priority: 0, title: "Same channel"),
            // Another source, no limit.
            Slot(id: 4, channelID: 3, sourceID: 8, start: 0, stop: 200, priority: 0, title: "Elsewhere"),
            // After the winner: free again.
            Slot(id: 5, channelID: 1, sourceID: 9, start: 150, stop: 200, priority: 0, title: "Later"),
        ]
        let losers = RecordingConflicts.losers(slots, limits: [9: 1])
        #expect(Set(losers.keys) == [1])
        #expect(losers[1]?.contains("'High' (priority 5)") == true)
        #expect(losers[1]?.contains("allows 1 channel at once") == true)
        // Two channels allowed: nobody loses.
        #expect(RecordingConflicts.losers(slots, limits: [9: 2]).isEmpty)
    }

    @Test func fileNamesComeFromTheGuideAndNameNoOtherPlace() {
        let utc = TimeZone(identifier: "UTC")!
        #expect(
            RecordingNames.relativePath(
                title: "Dr Who", season: 1, episode: 2, start: Self.now, part: 1, fileExtension: "ts", timeZone: utc)
                == "Dr Who/Dr Who - S01E02 - 2027-01-15 0800.ts")
        let hostile = RecordingNames.relativePath(
            title: "../../etc/passwd\u{0}", season: nil, episode: nil, start: Self.now, part: 2, fileExtension: "mp4",
            timeZone: utc)
        #expect(hostile == "etc passwd/etc passwd - 2027-01-15 0800 (part 2).mp4")
        #expect(!hostile.contains("..") && hostile.split(separator: "/").count == 2)
        #expect(RecordingNames.safe("...") == "Recording")
        #expect(RecordingNames.safe(String(repeating: "a", count: 500)).count == 80)
    }
}

/// Where a failover's new stream begins in a recording's bytes, across buffer boundaries.
@Suite struct RecordingSplitterTests {
    static func packets(_ pids: [UInt16]) -> [UInt8] {
        pids.flatMap { pid -> [UInt8] in
            [0x47, UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10] + [UInt8](repeating: 0xFF, count: 184)
        }
    }

    /// `bytes` cut into buffers of `size` (not a multiple of 188), and the split offsets found,
    /// as offsets in the whole.
    static func splits(_ bytes: [UInt8], size: Int) -> [Int] {
        var splitter = RecordingSplitter()
        var found: [Int] = []
        var start = 0
        while start < bytes.count {
            var buffer = ByteBuffer(bytes: bytes[start..<min(bytes.count, start + size)])
            var base = start
            while let at = splitter.split(in: buffer) {
                found.append(base + at)
                splitter.reset()
                buffer.moveReaderIndex(forwardBy: at)
                base += at
            }
            start += size
        }
        return found
    }

    @Test func aNewStreamAfterThePartSettledSplitsAtItsFirstPacket() {
        let settled: [UInt16] = Array(repeating: [0x100, 0x101, 0x0, 0x1000] as [UInt16], count: 200).flatMap { $0 }
        // A PID new before the part settled is part of the part (a stream that starts late).
        let early = Self.packets([0x100, 0x102] as [UInt16] + settled)
        let spliced = early + Self.packets([0x0, 0x1FFF, 0x120, 0x121, 0x120] as [UInt16])
        for size in [1000, 188, 4096, 187] {
            #expect(Self.splits(spliced, size: size) == [early.count + 2 * 188], "buffers of \(size)")
        }
        #expect(Self.splits(early + Self.packets([0x100, 0x0, 0x1FFF] as [UInt16]), size: 1000).isEmpty)
    }
}
