import Testing

@testable import MediaCache

@Suite struct SpanSetTests {
    @Test func insertMergesOverlappingAndAdjacentRanges() {
        var spans = SpanSet()
        spans.insert(10..<20)
        spans.insert(30..<40)
        #expect(spans.ranges == [10..<20, 30..<40])
        spans.insert(20..<30)
        #expect(spans.ranges == [10..<40])
        spans.insert(0..<5)
        spans.insert(3..<12)
        #expect(spans.ranges == [0..<40])
        spans.insert(50..<60)
        spans.insert(45..<55)
        #expect(spans.ranges == [0..<40, 45..<60])
        #expect(spans.count == 55)
    }

    @Test func queriesAnswerHeldAndMissingBytes() {
        let spans = SpanSet([0..<10, 20..<30, 40..<50])
        #expect(spans.contiguousCount(from: 5) == 5)
        #expect(spans.contiguousCount(from: 10) == 0)
        #expect(spans.contiguousCount(from: 25) == 5)
        #expect(spans.nextHeldOffset(from: 12) == 20)
        #expect(spans.nextHeldOffset(from: 22) == 22)
        #expect(spans.nextHeldOffset(from: 50) == nil)
        #expect(spans.contains(20..<30))
        #expect(!spans.contains(15..<25))
        #expect(spans.gaps(in: 0..<60) == [10..<20, 30..<40, 50..<60])
        #expect(spans.gaps(in: 5..<8) == [])
        #expect(spans.gaps(in: 8..<22) == [10..<20])
    }

    @Test func truncateForgetsBytesPastTheEnd() {
        var spans = SpanSet([0..<10, 20..<30])
        spans.truncate(at: 25)
        #expect(spans.ranges == [0..<10, 20..<25])
        spans.truncate(at: 5)
        #expect(spans.ranges == [0..<5])
    }

    @Test func randomInsertsMatchABitmap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var spans = SpanSet()
            var bitmap = [Bool](repeating: false, count: 300)
            for _ in 0..<20 {
                let start = Int.random(in: 0..<300, using: &generator)
                let end = Int.random(in: start...300, using: &generator)
                spans.insert(Int64(start)..<Int64(end))
                for index in start..<end { bitmap[index] = true }
            }
            #expect(spans.count == Int64(bitmap.filter { $0 }.count))
            for offset in 0..<300 {
                #expect((spans.contiguousCount(from: Int64(offset)) > 0) == bitmap[offset])
            }
            for (a, b) in zip(spans.ranges, spans.ranges.dropFirst()) {
                #expect(a.upperBound < b.lowerBound, "ranges stay sorted and apart")
            }
        }
    }
}
