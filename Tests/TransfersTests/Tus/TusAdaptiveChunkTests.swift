import Testing

@testable import Transfers

/// PATCH sizes follow the link: about ten seconds of bytes each, within bounds.
@Suite struct TusAdaptiveChunkTests {
    @Test func chunksShrinkOnSlowLinksAndGrowBackOnFastOnes() {
        let largest: Int64 = 8 << 20
        // 8 MiB took 40 s (~200 KiB/s): the next PATCH carries ~2 MiB, ten seconds' worth.
        #expect(TusClient.nextChunkSize(sent: 8 << 20, in: .seconds(40), largest: largest) == 2 << 20)
        // Very slow: never below 256 KiB.
        #expect(TusClient.nextChunkSize(sent: 256 << 10, in: .seconds(600), largest: largest) == 256 << 10)
        // Fast: the largest.
        #expect(TusClient.nextChunkSize(sent: 2 << 20, in: .milliseconds(100), largest: largest) == largest)
        // Nothing measured: the largest.
        #expect(TusClient.nextChunkSize(sent: 0, in: .seconds(1), largest: largest) == largest)
        #expect(TusClient.nextChunkSize(sent: 100, in: .zero, largest: largest) == largest)
        // A configured chunk smaller than the floor is kept.
        #expect(TusClient.nextChunkSize(sent: 1000, in: .seconds(100), largest: 4096) == 4096)
    }
}
