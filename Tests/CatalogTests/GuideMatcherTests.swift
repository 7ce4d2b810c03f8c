import Testing

@testable import Catalog

/// The guide matcher's pieces on real channel names: how a name is taken apart, and which guide
/// channel it finds (or refuses).
@Suite struct GuideMatcherTests {
    @Test func namesAreTakenApartAsPlaylistsWriteThem() {
        let bbc = GuideMatchName(name: "UK: BBC One HD")
        #expect(bbc.words == ["bbc", "1"] && bbc.country == "uk" && bbc.hd)
        #expect(GuideMatchName(name: "BBC1").words == ["bbc", "1"])
        #expect(GuideMatchName(name: "bbc one").words == ["bbc", "1"])
        #expect(GuideMatchName(name: "Télé-Québec (720p)").words == ["tele", "quebec"])
        let plusOne = GuideMatchName(name: "Channel 4 +1")
        #expect(plusOne.words == ["channel", "4"] && plusOne.timeshift == 1)
        #expect(GuideMatchName(name: "Bloomberg TV+").words == ["bloomberg", "tv", "plus"])
        let station = GuideMatchName(name: "ABC 12 Milwaukee WI (WISN) (720p)")
        #expect(station.callSign == "wisn" && station.subchannel == nil)
        let sub = GuideMatchName(name: "KCBS-DT2 [Geo-blocked]")
        #expect(sub.callSign == "kcbs" && sub.subchannel == 2 && sub.words == ["kcbs"])
        #expect(GuideMatchName(name: "KIDS Channel").callSign == nil, "a word in capitals is not a call sign")
        let east = GuideMatchName(name: "National Geographic HD - Eastern")
        #expect(east.words == ["national", "geographic"] && east.feed == "east" && east.hd)
        #expect(GuideMatchName(name: "CNN", group: "USA | News").country == "us")
    }

    @Test func guideIDsReadAsNames() throws {
        let oan = try #require(GuideMatchName(guideID: "OneAmericaNewsNetwork.us@SD"))
        #expect(oan.words == ["1", "america", "news", "network"] && oan.country == "us", "number words as digits")
        let station = try #require(GuideMatchName(guideID: "KMBCTV91.us@HD"))
        #expect(station.callSign == "kmbc" && station.subchannel == 1 && station.hd)
        #expect(try #require(GuideMatchName(guideID: "FX.us@West")).feed == "west")
        #expect(try #require(GuideMatchName(guideID: "France24.fr@Arabic")).words == ["france", "24", "arabic"])
        #expect(GuideMatchName(guideID: "12345") == nil || GuideMatchName(guideID: "12345")?.words == ["12345"])
    }

    let guide = GuideMatcher(channels: [
        .init(epgID: "BBCOne.uk", name: "BBC One"),
        .init(epgID: "BBCTwo.uk", name: "BBC Two"),
        .init(epgID: "Channel4.uk", name: "Channel 4"),
        .init(epgID: "Channel4Plus1.uk", name: "Channel 4 +1"),
        .init(epgID: "KMBCTV91.us@HD", name: "ABC (KMBC) Kansas City, MO HD"),
        .init(epgID: "KMBCTV92.us@SD", name: "MeTV (KMBC-DT2) Kansas City, MO"),
        .init(epgID: "TVOne.us@SD", name: "TV One"),
        .init(epgID: "TV1.my@SD", name: "TV1"),
    ])

    @Test func clearMatchesApplyAndTheirScoresSayWhy() throws {
        let bbc = guide.suggestions(forName: "UK: BBC One FHD")
        #expect(GuideMatcher.automatic(bbc)?.epgID == "BBCOne.uk")
        #expect(bbc.first?.parts.contains { $0.reason == "words" && $0.detail == "bbc 1" } == true)
        #expect(GuideMatcher.automatic(guide.suggestions(forName: "BBC1"))?.epgID == "BBCOne.uk")
        #expect(GuideMatcher.automatic(guide.suggestions(forName: "Channel 4 +1 HD"))?.epgID == "Channel4Plus1.uk")
        let four = guide.suggestions(forName: "Channel 4")
        #expect(GuideMatcher.automatic(four)?.epgID == "Channel4.uk")
        #expect(four.first { $0.epgID == "Channel4Plus1.uk" }?.parts.contains { $0.reason == "time shift" } == true)
        let station = guide.suggestions(forName: "KMBC-DT2")
        #expect(GuideMatcher.automatic(station)?.epgID == "KMBCTV92.us@SD")
        #expect(station.first?.parts.map(\.reason).contains("call sign") == true)
    }

    @Test func ambiguousOrUnrelatedNamesOnlySuggest() {
        // "TV 1" is TV One (US) or TV1 (Malaysia): too close to call, so nothing applies by itself.
        let tv1 = guide.suggestions(forName: "TV 1")
        #expect(GuideMatcher.automatic(tv1) == nil && tv1.count >= 2)
        #expect(GuideMatcher.automatic(guide.suggestions(forName: "Mystery Channel")) == nil)
        #expect(guide.suggestions(forName: "").isEmpty && guide.suggestions(forName: "(720p) [HD]").isEmpty)
    }

    @Test func hostileNamesEndInAnAnswer() {
        let long = String(repeating: "[a", count: 100_000) + String(repeating: "+9", count: 100_000)
        #expect(guide.suggestions(forName: long).count <= 3)
        #expect(GuideMatchName(name: String(repeating: "K", count: 10_000)).words.count <= 1)
        #expect(GuideMatchName(guideID: String(repeating: "@.", count: 10_000)) == nil)
        #expect(GuideMatcher(channels: []).suggestions(forName: "BBC One").isEmpty)
    }
}
