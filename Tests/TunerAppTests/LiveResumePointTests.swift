import Testing

@testable import LiveTV
@testable import TunerApp

/// The resume point of a file played as a live channel: only a part that starts exactly after
/// the bytes delivered, of the same length, is taken; an endless answer has no point at all.
@Suite struct LiveResumePointTests {
    @Test func aPartIsTakenOnlyWhereTheFileStopped() {
        let file = LiveResumePoint.File(length: 600_000, validator: "\"v1\"", delivered: 200_000)
        #expect(LiveResumePoint.continues(file, contentRange: "bytes 200000-599999/600000"))
        #expect(LiveResumePoint.continues(file, contentRange: "bytes 200000-299999/*"))
        for hostile in [
            nil, "", "bytes 0-599999/600000", "bytes 199999-599999/600000", "bytes 200001-599999/600000",
            "bytes 200000-599999/700000", "bytes 200000-699999/600000", "bytes */600000", "bytes -200000-5/600000",
            "bytes +200000-599999/600000", "bytes 200000-599999/-1", "items 200000-599999/600000",
            "bytes 200000-99999999999999999999/*",
        ] {
            #expect(!LiveResumePoint.continues(file, contentRange: hostile), "\(hostile ?? "nil")")
        }
    }

    @Test func deliveredBytesAreCountedOnlyForAnAnswerWithALength() {
        let point = LiveResumePoint()
        point.delivered(1000)
        #expect(point.file == nil)
        point.started(length: 5000, validator: nil)
        point.delivered(1000)
        point.delivered(1500)
        #expect(point.file == LiveResumePoint.File(length: 5000, validator: nil, delivered: 2500))
        point.delivered(Int.max)
        point.delivered(Int.max)
        #expect(point.file?.delivered == Int64.max, "a count saturates instead of trapping")
        point.started(length: nil, validator: "\"v2\"")
        #expect(point.file == nil, "an endless answer forgets the file")
    }
}
