import Foundation
import MediaFormats
import Testing

@Suite("XMLTV dates")
struct XMLTVDateTests {
    @Test(arguments: [
        ("20151126060000 +0000", 1_448_517_600, 0),
        ("20151126060000", 1_448_517_600, 0),
        ("20260503000000 -0400", 1_777_780_800, -14_400),
        ("20250922014500 +0300", 1_758_494_700, 10_800),
        ("20250922014500 +03:00", 1_758_494_700, 10_800),
        ("20250922014500 +03", 1_758_494_700, 10_800),
        ("20250922014500+0300", 1_758_494_700, 10_800),
        ("201511260600 +0000", 1_448_517_600, 0),
        ("2015112606", 1_448_517_600, 0),
        ("20151126", 1_448_496_000, 0),
        ("201511", 1_446_336_000, 0),
        ("2015", 1_420_070_400, 0),
        ("20151126060000 UTC", 1_448_517_600, 0),
        ("20151126060000 Z", 1_448_517_600, 0),
        ("  20000229235959 -0530", 951_868_799 + 19_800, -19_800),
        ("19691231235959 +0000", -1, 0),
    ])
    func parsesTheFormsGuidesUse(text: String, seconds: Int64, offset: Int) throws {
        let date = try #require(XMLTVDate(text))
        #expect(date.secondsSince1970 == seconds)
        #expect(date.utcOffset == offset)
        #expect(date.date == Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test(arguments: [
        "", "abc", "201", "2015112606000000", "20151326060000 +0000", "20151126250000", "20151126060000 +2500",
        "20151126060000 +1",
    ])
    func rejectsWhatIsNotADate(text: String) {
        #expect(XMLTVDate(text) == nil)
    }

    @Test func printsBackInTheGuidesOwnOffset() throws {
        #expect(try #require(XMLTVDate("20260503000000 -0400")).description == "20260503000000 -0400")
        #expect(try #require(XMLTVDate("2015112606")).description == "20151126060000 +0000")
        #expect(try #require(XMLTVDate("20250922014500 +0530")).description == "20250922014500 +0530")
        #expect(XMLTVDate(secondsSince1970: -1).description == "19691231235959 +0000")
    }
}

@Suite("XMLTV episode numbers")
struct XMLTVEpisodeNumberTests {
    @Test(
        arguments: [
            ("0.9.0/1", 1, 10, 1, nil, 1),
            ("5.3/10.", 6, 4, nil, 10, nil),
            ("18.50/30.", 19, 51, nil, 30, nil),
            (".3.", nil, 4, nil, nil, nil),
            ("1.11.0/1", 2, 12, 1, nil, 1),
            (" 2 . 4 / 12 . ", 3, 5, nil, 12, nil),
            ("2/3..", 3, nil, nil, nil, nil),
        ] as [(String, Int?, Int?, Int?, Int?, Int?)])
    func derivesOneBasedNumbersFromXMLTVNS(
        text: String, season: Int?, episode: Int?, part: Int?, totalEpisodes: Int?, totalParts: Int?
    ) throws {
        let parsed = try #require(XMLTVEpisodeNumber(system: "xmltv_ns", value: text).seasonEpisode)
        #expect(parsed.season == season)
        #expect(parsed.episode == episode)
        #expect(parsed.part == part)
        #expect(parsed.totalEpisodes == totalEpisodes)
        #expect(parsed.totalParts == totalParts)
    }

    @Test func rejectsXMLTVNSWithoutNumbers() {
        #expect(XMLTVEpisodeNumber(system: "xmltv_ns", value: "..").seasonEpisode == nil)
        #expect(XMLTVEpisodeNumber(system: "xmltv_ns", value: "a.b.c").seasonEpisode == nil)
        #expect(XMLTVEpisodeNumber(system: "dd_progid", value: "EP01419807.0010").seasonEpisode == nil)
    }

    @Test func readsOnScreenNumbers() throws {
        #expect(
            XMLTVEpisodeNumber(system: "onscreen", value: "S01E05").seasonEpisode
                == XMLTVSeasonEpisode(season: 1, episode: 5))
        #expect(
            XMLTVEpisodeNumber(system: "onscreen", value: "s2 e13").seasonEpisode
                == XMLTVSeasonEpisode(season: 2, episode: 13))
        #expect(XMLTVEpisodeNumber(value: "E12").seasonEpisode == XMLTVSeasonEpisode(episode: 12))
        #expect(XMLTVEpisodeNumber(system: "onscreen", value: "Special").seasonEpisode == nil)
    }

    @Test func programmePrefersXMLTVNSOverOnScreen() throws {
        let programme = XMLTVProgramme(
            channel: "c", start: XMLTVDate(secondsSince1970: 0),
            episodeNumbers: [
                XMLTVEpisodeNumber(system: "onscreen", value: "S09E09"),
                XMLTVEpisodeNumber(system: "xmltv_ns", value: "0.1."),
            ]
        )
        #expect(programme.seasonNumber == 1)
        #expect(programme.episodeNumber == 2)
    }
}
