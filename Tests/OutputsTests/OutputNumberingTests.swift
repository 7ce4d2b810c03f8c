import Testing

@testable import Outputs

/// Numbers stay with their channels: refreshes, new channels and channels that come back never
/// move a number already given.
@Suite struct OutputNumberingTests {
    func keys(_ names: [String]) -> [(key: OutputChannelKey, playlistNumber: String?)] {
        names.map { (key: OutputChannelKey(kind: "live", identity: $0), playlistNumber: nil) }
    }

    @Test func newChannelsTakeFreeNumbersAndOldOnesKeepTheirs() {
        let numbering = OutputNumbering(start: 100)
        let first = numbering.assign(keys(["a", "b", "c"]), existing: [:])
        #expect(first.added.count == 3)
        #expect(first.numbers == [100, 101, 102])
        // The provider reorders, drops b and adds e and d in front.
        let second = numbering.assign(keys(["e", "d", "c", "a"]), existing: first.added)
        #expect(second.numbers == [103, 104, 102, 100], "101 stays b's")
        #expect(Set(second.added.keys.map(\.identity)) == ["d", "e"])
        // Nothing new: nothing added.
        #expect(numbering.assign(keys(["a", "c"]), existing: first.added).added.isEmpty)
    }

    @Test func playlistNumbersAreKeptWhenFreeAndWholeAndInRange() {
        let numbering = OutputNumbering(start: 1, keepPlaylistNumbers: true)
        let channels: [(key: OutputChannelKey, playlistNumber: String?)] = [
            (OutputChannelKey(kind: "live", identity: "a"), "7"),
            (OutputChannelKey(kind: "live", identity: "b"), "7"),
            (OutputChannelKey(kind: "live", identity: "c"), "5.1"),
            (OutputChannelKey(kind: "live", identity: "d"), "99999999999999999999"),
            (OutputChannelKey(kind: "live", identity: "e"), "-3"),
        ]
        #expect(numbering.assign(channels, existing: [:]).numbers == [7, 1, 2, 3, 4])
    }

    @Test func numbersStopAtTheHighestAndAHostileStartIsClamped() {
        let top = OutputNumbering(start: OutputNumbering.highest).assign(keys(["a", "b"]), existing: [:])
        #expect(top.numbers == [OutputNumbering.highest, nil], "one channel fits above the start, the other gets none")
        let negative = OutputNumbering(start: Int.min).assign(keys(["a"]), existing: [:])
        #expect(negative.numbers == [1])
    }

    @Test func profileIDsAreShortSlugs() {
        #expect(OutputProfile.isValidID("default") && OutputProfile.isValidID("kids-2"))
        for bad in ["", "-x", "Upper", "a/b", "a.b", "é", String(repeating: "a", count: 33), "../x", "a%2Fb"] {
            #expect(!OutputProfile.isValidID(bad), "\(bad)")
        }
    }
}
