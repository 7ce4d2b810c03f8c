import Catalog
import Foundation
import Testing
import TunerStorage
import TunerTesting

@testable import Outputs

/// The lineup editor's changes: the rules on their own (numbers made room for, renumbering that
/// skips, refusals before anything is read) and through the store on each engine (all or nothing,
/// kept across a refresh, what outputs show).
@Suite struct OutputLineupChangeTests {
    static func key(_ identity: String) -> OutputChannelKey { OutputChannelKey(kind: "live", identity: identity) }

    static func members(_ identities: [String]) -> [(key: OutputChannelKey, playlistNumber: String?)] {
        identities.map { (key: key($0), playlistNumber: nil) }
    }

    @Test func placingAChannelMovesTheRunAboveItUpOne() throws {
        let old = ["a": 1, "b": 2, "c": 3, "d": 5, "e": 8]
        let numbers = try OutputLineupChange(place: .init(identity: "e", number: 2)).applyNumbers(
            members: Self.members(["a", "b", "c", "d", "e"]), numbering: OutputNumbering(),
            numbers: Dictionary(uniqueKeysWithValues: old.map { (Self.key($0.key), $0.value) }))
        // b and c move up one to 3 and 4; d at 5 stays (4 was free); e takes 2.
        #expect(numbers == [Self.key("a"): 1, Self.key("e"): 2, Self.key("b"): 3, Self.key("c"): 4, Self.key("d"): 5])
    }

    @Test func renumberingSkipsTheNumbersOfTheOtherChannelsAndAChannelAwayGivesItsUp() throws {
        let old = [Self.key("a"): 1, Self.key("b"): 2, Self.key("keep"): 101, Self.key("away"): 102]
        let numbers = try OutputLineupChange(renumber: .init(identities: ["b", "a", "new"], from: 100))
            .applyNumbers(
                members: Self.members(["a", "b", "keep", "new"]), numbering: OutputNumbering(), numbers: old)
        // `new` got 3 from the rule first, then 103; `away` (not in the lineup) gave up 102.
        #expect(
            numbers == [
                Self.key("b"): 100, Self.key("a"): 102, Self.key("new"): 103, Self.key("keep"): 101,
            ])
    }

    @Test func removedChannelsForgetTheirNumbersAndUnknownOnesAreRefused() throws {
        let old = [Self.key("a"): 1, Self.key("b"): 2]
        let numbers = try OutputLineupChange(remove: ["a"]).applyNumbers(
            members: Self.members(["b"]), numbering: OutputNumbering(), numbers: old)
        #expect(numbers == [Self.key("b"): 2])
        let refused = #expect(throws: OutputError.self) {
            try OutputLineupChange(place: .init(identity: "nope", number: 4)).applyNumbers(
                members: Self.members(["b"]), numbering: OutputNumbering(), numbers: old)
        }
        #expect(refused?.kind == .notFound)
        #expect(throws: OutputError.self) {
            try OutputLineupChange(renumber: .init(identities: ["a", "b"], from: OutputNumbering.highest))
                .applyNumbers(members: Self.members(["a", "b"]), numbering: OutputNumbering(), numbers: old)
        }
    }

    @Test(arguments: [
        OutputLineupChange(renumber: .init(identities: ["a"], from: 0)),
        OutputLineupChange(place: .init(identity: "a", number: 1_000_000)),
        OutputLineupChange(edits: [.init(identity: "a", logo: "javascript:alert(1)")]),
        OutputLineupChange(edits: [.init(identity: "a", logo: "file:///etc/passwd")]),
        OutputLineupChange(edits: [.init(identity: "a", logo: "upload:../../etc/passwd.png")]),
        OutputLineupChange(edits: [.init(identity: "a", name: String(repeating: "x", count: 201))]),
        OutputLineupChange(edits: [.init(identity: "a", group: "a\u{0}b")]),
        OutputLineupChange(add: [""]),
        OutputLineupChange(add: Array(repeating: "a", count: OutputLineupChange.largest + 1)),
    ])
    func badChangesAreRefusedBeforeAnythingIsRead(change: OutputLineupChange) {
        #expect(throws: OutputError.self) { try change.check() }
    }

    @Test func addingAndRemovingEditTheSelectionAndEditsClearWithAnEmptyString() {
        var profile = OutputProfile(id: "p", name: "P", deviceID: 1, accessKey: "k")
        profile.selection.exclude = ["a"]
        OutputLineupChange(
            add: ["a", "b"], remove: ["c"],
            edits: [.init(identity: "a", name: " Alpha ", group: "Kids", logo: "https://l/a.png", disabled: true)]
        ).applySettings(to: &profile)
        #expect(profile.selection.include == ["a", "b"] && profile.selection.exclude == ["c"])
        #expect(profile.renames["a"] == "Alpha")
        #expect(profile.edits["a"] == OutputChannelEdit(group: "Kids", logo: "https://l/a.png", disabled: true))
        OutputLineupChange(edits: [.init(identity: "a", name: "", group: "", logo: "", disabled: false)])
            .applySettings(to: &profile)
        #expect(profile.renames["a"] == nil && profile.edits["a"] == nil)
        // A picked lineup keeps no exclusions: what is not included is out already.
        profile.selection.pickedOnly = true
        OutputLineupChange(remove: ["b"]).applySettings(to: &profile)
        #expect(profile.selection.include == ["a"] && profile.selection.exclude == ["c"])
    }

    @Test func logosAreToldByTheirFirstBytesAndNamedByTheirDigest() {
        #expect(ChannelLogo.format(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ChannelLogo.format(of: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpg)
        #expect(ChannelLogo.format(of: Array("GIF89a....".utf8)) == .gif)
        #expect(ChannelLogo.format(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ChannelLogo.format(of: Array("<svg xmlns='http://www.w3.org/2000/svg'>".utf8)) == nil)
        #expect(ChannelLogo.format(of: Array("<html><script>".utf8)) == nil)
        #expect(ChannelLogo.format(of: []) == nil)
        let digest = String(repeating: "ab", count: 32)
        #expect(ChannelLogo(name: digest + ".png")?.reference == "upload:" + digest + ".png")
        for name in [
            digest + ".svg", digest.uppercased() + ".png", "../" + digest + ".png", digest + ".png/x", digest,
            String(digest.dropFirst()) + ".png", digest + ".png.png",
        ] {
            #expect(ChannelLogo(name: name) == nil, "\(name)")
        }
    }

    // MARK: Through the store

    @Test(arguments: StorageEngine.underTest)
    func aPickedLineupIsBuiltNumberedAndKeptAcrossARefresh(engine: StorageEngine) async throws {
        try await OutputStoreTests.Harness.with(engine) { harness in try await pickedLineup(harness) }
    }

    func pickedLineup(_ harness: OutputStoreTests.Harness) async throws {
        try await harness.importChannels(["One", "Two", "Three", "Four"])
        let items = try await harness.catalog.items(CatalogItemQuery(kind: .live, limit: 10)).items
        func identity(_ name: String) throws -> String { try #require(items.first { $0.name == name }).identity }
        var selection = OutputSelection()
        selection.pickedOnly = true
        try await harness.store.insert(
            OutputProfile(
                id: "family", name: "Family", selection: selection, deviceID: HDHomeRunDeviceID.random(),
                accessKey: OutputStore.randomKey()))
        #expect(try await harness.store.lineup(profileID: "family").isEmpty)

        // Add three and number them from 100 in one change; then move Four to the front.
        let picked = [try identity("Two"), try identity("Four"), try identity("One")]
        _ = try await harness.store.changeLineup(
            profileID: "family",
            OutputLineupChange(add: picked, renumber: .init(identities: picked, from: 100)))
        var lineup = try await harness.store.lineup(profileID: "family")
        #expect(lineup.map(\.name) == ["Two", "Four", "One"] && lineup.map(\.number) == [100, 101, 102])
        _ = try await harness.store.changeLineup(
            profileID: "family", OutputLineupChange(place: .init(identity: try identity("Four"), number: 100)))
        lineup = try await harness.store.lineup(profileID: "family")
        #expect(lineup.map(\.name) == ["Four", "Two", "One"] && lineup.map(\.number) == [100, 101, 102])

        // Name, group and logo as players see them; a disabled channel keeps its number, unseen.
        let logo = try await harness.store.saveLogo([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        #expect(logo.created && logo.logo.format == .png)
        #expect(
            try await harness.store.saveLogo([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).created == false
        )
        _ = try await harness.store.changeLineup(
            profileID: "family",
            OutputLineupChange(edits: [
                .init(identity: try identity("Four"), name: "Quatre", group: "Kids", logo: logo.logo.reference),
                .init(identity: try identity("Two"), disabled: true),
            ]))
        lineup = try await harness.store.lineup(profileID: "family")
        #expect(lineup.map(\.name) == ["Quatre", "One"] && lineup.map(\.number) == [100, 102])
        #expect(lineup.first?.item.group == "Kids" && lineup.first?.item.logo == logo.logo.reference)
        #expect(
            try await harness.store.logoBytes(logo.logo) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

        // A refused change leaves everything as it was: the renumbering passes the last number.
        await #expect(throws: OutputError.self) {
            try await harness.store.changeLineup(
                profileID: "family",
                OutputLineupChange(
                    add: [try identity("Three")],
                    renumber: .init(identities: picked, from: OutputNumbering.highest - 1)))
        }
        #expect(try await harness.store.lineup(profileID: "family") == lineup)

        // A refresh that reorders the playlist and drops a channel keeps the lineup.
        try await harness.importChannels(["Four", "Three", "One", "Two"])
        #expect(try await harness.store.lineup(profileID: "family").map(\.number) == [100, 102])
        let (_, entries) = try await harness.store.editorEntries(profileID: "family")
        #expect(entries.prefix(3).map(\.item.name) == ["Four", "Two", "One"] && entries.last?.number == nil)
        #expect(entries.count == 4)
        await #expect(throws: OutputError.self) {
            try await harness.store.changeLineup(profileID: "nope", OutputLineupChange(add: ["x"]))
        }
    }
}
