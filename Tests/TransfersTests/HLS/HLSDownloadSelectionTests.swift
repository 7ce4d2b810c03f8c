import Foundation
import MediaFormats
import Testing

@testable import Transfers

/// The pure choice of what a master playlist's download takes: the variant's audio rendition
/// (default, autoselect, first, or a wanted language), the names of the audio files, and the
/// local master playlist that ties the local copies together.
@Suite struct HLSDownloadSelectionTests {
    let base = URL(string: "https://cdn.example.com/film/master.m3u8?token=t")!

    func master(_ media: [String], audioGroup: String = "aud", extra: String = "") throws -> HLSPlaylist {
        try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-VERSION:6
                \(media.map { "#EXT-X-MEDIA:" + $0 }.joined(separator: "\n"))
                #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="\(audioGroup)"\(extra)
                video/720.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="low"
                video/360.m3u8
                """)
    }

    func audioName(_ media: [String], language: String? = nil) throws -> String? {
        try HLSDownloadSelection(
            master: try master(media), url: base, rendition: .highestBandwidth, audioLanguage: language
        )
        .audio?.name
    }

    @Test func theAudioRenditionIsTheDefaultThenTheAutoselectedThenTheFirst() throws {
        let plain = #"TYPE=AUDIO,GROUP-ID="aud",NAME="plain",URI="a/plain.m3u8""#
        let auto = #"TYPE=AUDIO,GROUP-ID="aud",NAME="auto",AUTOSELECT=YES,URI="a/auto.m3u8""#
        let preferred = #"TYPE=AUDIO,GROUP-ID="aud",NAME="default",DEFAULT=YES,AUTOSELECT=YES,URI="a/default.m3u8""#
        let otherGroup = #"TYPE=AUDIO,GROUP-ID="low",NAME="low",DEFAULT=YES,URI="a/low.m3u8""#
        #expect(try audioName([otherGroup, plain, auto, preferred]) == "default")
        #expect(try audioName([otherGroup, plain, auto]) == "auto")
        #expect(try audioName([otherGroup, plain, plain.replacingOccurrences(of: "plain", with: "second")]) == "plain")

        let selection = try HLSDownloadSelection(
            master: try master([plain, preferred]), url: base, rendition: .highestBandwidth, audioLanguage: nil)
        #expect(selection.variantURL.absoluteString == "https://cdn.example.com/film/video/720.m3u8")
        #expect(selection.audioURL?.absoluteString == "https://cdn.example.com/film/a/default.m3u8")

        // The lower variant has its own group.
        let low = try HLSDownloadSelection(
            master: try master([plain, otherGroup]), url: base, rendition: .highestBandwidth(atMost: 500_000),
            audioLanguage: nil)
        #expect(low.audio?.name == "low")
    }

    @Test func aWantedLanguageWinsAndAnUnofferedOneFallsBackToTheDefault() throws {
        let media = [
            #"TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="en.m3u8""#,
            #"TYPE=AUDIO,GROUP-ID="aud",NAME="Français",LANGUAGE="fr",AUTOSELECT=YES,URI="fr.m3u8""#,
            #"TYPE=AUDIO,GROUP-ID="aud",NAME="Português (Portugal)",LANGUAGE="pt-PT",URI="pt-pt.m3u8""#,
            #"TYPE=AUDIO,GROUP-ID="aud",NAME="Português (Brasil)",LANGUAGE="pt-BR",URI="pt-br.m3u8""#,
        ]
        #expect(try audioName(media) == "English")
        #expect(try audioName(media, language: "fr") == "Français")
        #expect(try audioName(media, language: "PT-br") == "Português (Brasil)", "an exact tag, in any case")
        #expect(try audioName(media, language: "pt") == "Português (Portugal)", "the first of the primary language")
        #expect(try audioName(media, language: "fr-CA") == "Français", "the same primary language")
        #expect(try audioName(media, language: "de") == "English", "not offered: the default")
    }

    @Test func aRenditionWithoutItsOwnPlaylistMeansTheVariantCarriesTheSound() throws {
        let muxed = #"TYPE=AUDIO,GROUP-ID="aud",NAME="main",DEFAULT=YES,LANGUAGE="en""#
        let dub = #"TYPE=AUDIO,GROUP-ID="aud",NAME="dub",LANGUAGE="fr",URI="fr.m3u8""#
        let plain = try HLSDownloadSelection(
            master: try master([muxed, dub]), url: base, rendition: .highestBandwidth, audioLanguage: nil)
        #expect(plain.audio == nil && plain.audioURL == nil)
        let dubbed = try HLSDownloadSelection(
            master: try master([muxed, dub]), url: base, rendition: .highestBandwidth, audioLanguage: "fr")
        #expect(dubbed.audio?.name == "dub")
        // A rendition that names the variant's own playlist adds nothing to download.
        let same = #"TYPE=AUDIO,GROUP-ID="aud",NAME="same",DEFAULT=YES,URI="video/720.m3u8""#
        #expect(
            try HLSDownloadSelection(
                master: try master([same]), url: base, rendition: .highestBandwidth, audioLanguage: nil
            ).audio == nil)
        // No AUDIO group at all.
        let none = try HLSPlaylist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        #expect(
            try HLSDownloadSelection(master: none, url: base, rendition: .highestBandwidth, audioLanguage: nil).audio
                == nil)
    }

    @Test func theLocalMasterNamesTheLocalPlaylistsAndKeepsTheAttributes() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-DEFINE:NAME="lang",VALUE="de"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="{$lang}",CHANNELS="2",URI="https://audio.example.com/de.m3u8?sig=1"
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",URI="subs/de.m3u8"
                #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
                #EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25.000,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
                video/720.m3u8
                """)
        let selection = try HLSDownloadSelection(
            master: playlist, url: base, rendition: .highestBandwidth, audioLanguage: nil)
        #expect(selection.audioURL?.absoluteString == "https://audio.example.com/de.m3u8?sig=1")
        let text = selection.localMaster(of: playlist, videoPlaylist: "video.m3u8", audioPlaylist: "audio.m3u8")
        let local = try HLSPlaylist(parsing: text)  // Strict: a valid RFC 8216 master.
        #expect(local.isMaster && local.version == 6 && local.hasIndependentSegments)
        #expect(!text.contains("http") && !text.contains("subs") && !text.contains("{$"), "\(text)")

        let audio = try #require(local.renditions.first { $0.type == .audio })
        #expect(audio.uri == "audio.m3u8" && audio.language == "de" && audio.channels == "2" && audio.name == "Deutsch")
        #expect(audio.isDefault && audio.isAutoselect)
        #expect(local.renditions.map(\.type) == [.audio, .closedCaptions])
        let variant = try #require(local.variants.first)
        #expect(local.variants.count == 1 && variant.uri == "video.m3u8")
        #expect(variant.bandwidth == 900_000 && variant.averageBandwidth == 800_000 && variant.frameRate == 25)
        #expect(
            variant.codecs == "avc1.64001f,mp4a.40.2" && variant.resolution == HLSResolution(width: 1280, height: 720))
        #expect(variant.audioGroup == "aud" && variant.subtitlesGroup == nil && variant.closedCaptionsGroup == "cc")
    }

    @Test func theAudioRenditionsFilesAreNamedApartFromTheVideos() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXTINF:2,
            seg0.m4s
            #EXT-X-ENDLIST
            """
        let url = URL(string: "https://cdn.example.com/film/audio/index.m3u8")!
        let audio = try HLSDownloadPlan(playlist: try HLSPlaylist(parsing: text), baseURL: url, media: .audio)
        let video = try HLSDownloadPlan(playlist: try HLSPlaylist(parsing: text), baseURL: url)
        #expect(audio.items.map(\.localName) == ["audio-init-0.mp4", "audio-key-0.key", "audio-segment-00000.m4s"])
        #expect(video.items.map(\.localName) == ["init-0.mp4", "key-0.key", "segment-00000.m4s"])
        #expect(audio.items.allSatisfy { $0.media == .audio } && video.items.allSatisfy { $0.media == .main })
        let local = audio.localPlaylist(try HLSPlaylist(parsing: text), baseURL: url).serialized()
        #expect(local.contains("URI=\"audio-init-0.mp4\"") && local.contains("\naudio-segment-00000.m4s\n"), "\(local)")
    }
}
