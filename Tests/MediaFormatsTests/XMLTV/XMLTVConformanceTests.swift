import Foundation
import MediaFormats
import Testing

/// Real guides from iptv-org/epg and Jellyfin.XmlTv (../shared/data, see its SOURCES.md):
/// every channel and programme the files hold is read, and sampled fields match.
@Suite("XMLTV conformance")
struct XMLTVConformanceTests {
    static let guides = [
        "iptv-org-epg/sites/energeek.cl/__data__/content.xml",
        "iptv-org-epg/sites/epg.iptvx.one/__data__/content.xml",
        "iptv-org-epg/sites/epg.tmacaraibes.com/__data__/content.xml",
        "iptv-org-epg/sites/epgshare01.online/__data__/content.xml",
        "iptv-org-epg/sites/makrodigitaltelevision.com/__data__/content.xml",
        "iptv-org-epg/sites/nzxmltv.com/__data__/content.xml",
        "iptv-org-epg/sites/vantagetv.ee/__data__/content.xml",
        "iptv-org-epg/sites/x1co.com.br/__data__/content.xml",
        "iptv-org-epg/tests/__data__/expected/epg_grab/base.guide.xml",
        "iptv-org-epg/tests/__data__/expected/epg_grab/custom_channels.guide.xml",
        "iptv-org-epg/tests/__data__/expected/epg_grab/multilang.guide.xml",
        "iptv-org-epg/tests/__data__/expected/epg_grab/multiple_channels.guide.xml",
        "Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/UK_Data.xml",
        "Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/MultilanguageData.xml",
        "Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/custom.xml",
        "Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/schedulesdirect.xml",
    ]

    @Test(arguments: guides)
    func readsEveryChannelAndProgramme(path: String) throws {
        let data = try XMLTVTestSupport.data(path)
        let guide = XMLTVTestSupport.parse(Array(data), chunkSize: 4093)
        #expect(guide.warnings.isEmpty, "\(guide.warnings)")
        #expect(guide.programmes.count == XMLTVTestSupport.countStartTags("programme", in: data))
        #expect(guide.channels.count == XMLTVTestSupport.countStartTags("channel", in: data))
        #expect(guide == XMLTVParser.parse(data))
        let channelIDs = Set(guide.channels.map(\.id))
        for programme in guide.programmes {
            #expect(!programme.titles.isEmpty || path.contains("iptvx"))
            #expect(channelIDs.contains(programme.channel))
            if let stop = programme.stop {
                #expect(stop.secondsSince1970 >= programme.start.secondsSince1970)
            }
        }
    }

    @Test(arguments: [
        "iptv-org-epg/sites/sky.com/sky.com.channels.xml",
        "iptv-org-epg/sites/tvpassport.com/tvpassport.com.channels.xml",
        "iptv-org-epg/tests/__data__/input/epg_grab/custom.channels.xml",
    ])
    func skipsIptvOrgChannelMapsWhichAreNotGuides(path: String) throws {
        let guide = XMLTVParser.parse(try XMLTVTestSupport.data(path))
        #expect(guide.channels.isEmpty && guide.programmes.isEmpty)
        #expect(guide.warnings.map(\.kind) == [.notXMLTV])
    }

    @Test func ukDataFields() throws {
        let guide = XMLTVParser.parse(
            try XMLTVTestSupport.data("Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/UK_Data.xml"))
        #expect(guide.channels.count == 5)
        #expect(guide.programmes.count == 1_964)
        #expect(guide.channels[0].displayNames == [XMLTVText("BBC1 HD", lang: "en"), XMLTVText("7-1", lang: "en")])
        #expect(guide.channels[0].icons == [XMLTVIcon(src: "Logo_UK_RT_2667", width: 100, height: 200)])
        #expect(guide.channels[2].icons == [XMLTVIcon(src: "Logo_UK_RT_2118", width: 100)])
        #expect(guide.channels[4].icons.isEmpty)

        let breakfast = guide.programmes[0]
        #expect(breakfast.channel == "UK_RT_2667")
        #expect(breakfast.start.description == "20151126060000 +0000")
        #expect(breakfast.stop?.secondsSince1970 == 1_448_529_300)
        #expect(breakfast.titles == [XMLTVText("Breakfast", lang: "en")])
        #expect(
            breakfast.descriptions.first?.value
                == "Round-up of national and international news, plus the latest from the money markets.")
        #expect(breakfast.categories == [XMLTVText("News", lang: "en")])
        #expect(breakfast.length == 195 * 60)
        #expect(breakfast.episodeNumbers.isEmpty)

        let fakeBritain = guide.programmes[1]
        #expect(fakeBritain.descriptions.first?.value.hasPrefix("The 'edible' glitter") == true)
        #expect(fakeBritain.seasonNumber == 6)
        #expect(fakeBritain.episodeNumber == 4)
        #expect(fakeBritain.seasonEpisode?.totalEpisodes == 10)

        let homes = guide.programmes[2]
        #expect(
            homes.titles.map(\.value) == [
                "Homes Under the Hammer - Title 1", "Homes Under the Hammer - Title 2",
                "Homes Under the Hammer - Title 3",
            ])
        #expect(homes.seasonNumber == 19)
        #expect(homes.episodeNumber == 51)
        #expect(guide.programmes[3].titles.allSatisfy { $0.lang == nil })

        #expect(guide.programmes.filter { $0.previouslyShown != nil }.count == 853)
        #expect(guide.programmes.filter { $0.premiere != nil }.count == 19)
        #expect(guide.programmes.filter { $0.isNew }.count == 1)
        #expect(guide.programmes.filter { !$0.episodeNumbers.isEmpty }.count == 1_258)
        #expect(guide.programmes.flatMap(\.subTitles).count == 917)
        // Declared ISO-8859-1 but holding UTF-8 (U+FFFD where a £ was lost upstream).
        #expect(guide.programmes.contains { $0.descriptions.contains { $0.value.contains("\u{FFFD}500,000") } })
    }

    @Test func multilanguageDataFields() throws {
        let guide = XMLTVParser.parse(
            try XMLTVTestSupport.data("Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/MultilanguageData.xml"))
        let first = try #require(guide.programmes.first)
        #expect(first.titles.map(\.lang) == ["es", "es", "en", "en", "", nil])
        #expect(first.titles.xmltvBest(for: ["en"]) == "Homes Under the Hammer - English")
        #expect(first.titles.xmltvBest(for: ["es"]) == "Homes Under the Hammer - Spanish")
        #expect(
            first.categories.map(\.value) == [
                "Property - English", "Property - Spanish", "Property - Empty Language", "Property - No Language",
            ])
    }

    @Test func schedulesDirectFields() throws {
        let guide = XMLTVParser.parse(
            try XMLTVTestSupport.data("Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/schedulesdirect.xml"))
        #expect(guide.channels.map(\.id) == ["EPG123.10108.schedulesdirect.org", "EPG123.10091.schedulesdirect.org"])
        #expect(guide.channels[0].displayNames.map(\.value) == ["CFTO", "CTV Toronto", "201 CFTO", "201", "CTV"])
        #expect(guide.channels[0].icons == [XMLTVIcon(src: "s10108_dark_360w_270h.png", width: 360, height: 270)])
        let match = guide.programmes[0]
        #expect(match.title == "Match Game")
        #expect(match.subTitles.first?.value == "Match Game")
        #expect(match.date == "20170514")
        #expect(match.categories.map(\.value) == ["Series", "Game Show"])
        #expect(match.icons.count == 4)
        #expect(match.episodeNumbers.map(\.system) == ["dd_progid", "xmltv_ns"])
        #expect(match.seasonNumber == 2)
        #expect(match.episodeNumber == 12)
        #expect(match.seasonEpisode?.part == 1)
        #expect(match.isRepeat)
        #expect(
            match.ratings == [
                XMLTVRating(system: "Canadian Parental Rating", value: "14+"),
                XMLTVRating(system: "USA Parental Rating", value: "TV14"),
                XMLTVRating(system: "VCHIP", value: "TV-14"),
            ])
        #expect(guide.programmes[1].stop?.description == "20200729020100 +0000")
    }

    @Test func customXMLFieldsWithMixedContent() throws {
        let guide = XMLTVParser.parse(
            try XMLTVTestSupport.data("Jellyfin.XmlTv/tests/Jellyfin.XmlTv.Tests/Test Data/custom.xml"))
        #expect(guide.channels.first?.urls == ["https://example.com/channel_one"])
        let programme = try #require(guide.programmes.first)
        #expect(programme.title == "Unforgettable")
        #expect(programme.icons.count == 5)
        #expect(programme.seasonNumber == 1)
        #expect(programme.episodeNumber == 10)
    }

    @Test func iptvOrgSiteGuidesFields() throws {
        let caraibes = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/epg.tmacaraibes.com/__data__/content.xml"))
        let first = try #require(caraibes.programmes.first)
        #expect(first.titles.map(\.lang) == ["fr", "en", "es", "pt"])
        #expect(first.descriptions.xmltvBest(for: ["es"]) == "Toda la música africana y caribeña.")
        #expect(first.start.utcOffset == -4 * 3600)
        #expect(first.start.secondsSince1970 == 1_777_780_800)
        #expect(first.length == 180 * 60)
        #expect(first.ratings.first == XMLTVRating(system: "CSA", value: "Tout public"))
        #expect(caraibes.channels.first?.displayNames == [XMLTVText("TMA", lang: "fr")])

        let iptvx = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/epg.iptvx.one/__data__/content.xml"))
        #expect(iptvx.channels.first?.displayNames.map(\.value) == ["12 канал Омск", "12 канал (Омск)"])
        #expect(iptvx.channels.first?.icons.first?.src == "https://iptvx.one/picons/12-omsk.png")
        #expect(iptvx.programmes.first?.start.description == "20250922014500 +0300")
        #expect(iptvx.programmes.first?.descriptions.first?.value.hasPrefix("В этом документальном цикле") == true)

        let epgshare = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/epgshare01.online/__data__/content.xml"))
        #expect(epgshare.channels.first?.icons.count == 2)
        #expect(epgshare.programmes.first?.title == "نشرة الأخبار")
        #expect(epgshare.programmes.first?.start.utcOffset == 3600)

        let makro = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/makrodigitaltelevision.com/__data__/content.xml"))
        #expect(makro.programmes.first?.titles == [XMLTVText("Programación Infantil", lang: "es")])

        let nz = XMLTVParser.parse(try XMLTVTestSupport.data("iptv-org-epg/sites/nzxmltv.com/__data__/content.xml"))
        #expect(nz.channels.first?.displayNames == [XMLTVText("TVNZ 1", lang: "en_NZ")])
        #expect(nz.channels.first?.urls == ["https://helptvnz.zendesk.com/hc/en-us/requests/new"])

        let vantage = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/vantagetv.ee/__data__/content.xml"))
        #expect(vantage.programmes.contains { $0.title == "It's The 80's" })
        #expect(vantage.channels.map(\.id) == ["vmusic", "vdance", "vrock"])

        let energeek = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/sites/energeek.cl/__data__/content.xml"))
        #expect(energeek.programmes.allSatisfy { $0.start.utcOffset == -3 * 3600 })

        let x1co = XMLTVParser.parse(try XMLTVTestSupport.data("iptv-org-epg/sites/x1co.com.br/__data__/content.xml"))
        #expect(x1co.programmes.first?.subTitles == [XMLTVText("T5 Ep37", lang: "pt")])
        #expect(x1co.programmes.first?.descriptions.first?.value == "Bob Esponja — T5 Ep37")
    }

    @Test func iptvOrgGeneratedGuides() throws {
        let base = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/tests/__data__/expected/epg_grab/base.guide.xml"))
        #expect(base.channels.map(\.id) == ["Channel1.us@HD", "Channel2.us", "140", "Channel3.us"])
        #expect(
            base.channels[3].icons.first?.src == "https://upload.wikimedia.org/wikipedia/commons/6/64/6%27eren_2015.png"
        )
        #expect(base.programmes.first?.titles == [XMLTVText("Programme1 (example.com)", lang: "fr")])
        // Duplicate channel ids are real in these files and are reported as they are.
        let multiple = XMLTVParser.parse(
            try XMLTVTestSupport.data("iptv-org-epg/tests/__data__/expected/epg_grab/multiple_channels.guide.xml"))
        #expect(multiple.channels.filter { $0.id == "Channel3.us" }.count == 2)
    }
}
