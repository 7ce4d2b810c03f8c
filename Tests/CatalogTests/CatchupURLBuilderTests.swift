import Testing

@testable import Catalog

@Suite("Catch-up URLs")
struct CatchupURLBuilderTests {
    // 2024-03-05 06:07:08 UTC, an hour long, watched 2 hours after it started.
    let start: Int64 = 1_709_618_828
    var end: Int64 { start + 3600 }
    var now: Int64 { start + 7200 }

    func url(_ stream: String, _ type: String, _ source: String? = nil, catchupID: String? = nil) -> String? {
        CatchupURLBuilder.url(
            for: .init(
                streamURL: stream, catchup: CatalogCatchup(type: type, source: source), start: start, end: end,
                now: now, catchupID: catchupID
            ))
    }

    @Test("Every placeholder of a default template is filled")
    func defaultTemplate() {
        let built = url(
            "http://example.com/live/1.ts", "default",
            "http://arch.example.com/{Y}/{m}/{d}/{H}{M}{S}?s={utc}&s2=${start}&e={utcend}&e2=${end}&n={lutc}&n2=${now}&d={duration}&dm={duration:60}&o={offset}&om={offset:60}&id={catchup-id}&keep={unknown}",
            catchupID: "prog42"
        )
        #expect(
            built
                == "http://arch.example.com/2024/03/05/060708?s=1709618828&s2=1709618828&e=1709622428&e2=1709622428&n=1709626028&n2=1709626028&d=3600&dm=60&o=7200&om=120&id=prog42&keep={unknown}"
        )
    }

    @Test("Append adds the filled template to the stream URL")
    func append() {
        #expect(
            url("http://example.com/live/1.m3u8", "append", "?utc={utc}&lutc={lutc}")
                == "http://example.com/live/1.m3u8?utc=1709618828&lutc=1709626028")
    }

    @Test("Shift adds utc and lutc with the right separator")
    func shift() {
        #expect(
            url("http://example.com/live/1.m3u8", "shift")
                == "http://example.com/live/1.m3u8?utc=1709618828&lutc=1709626028")
        #expect(
            url("http://example.com/live/1.m3u8?token=x", "shift")
                == "http://example.com/live/1.m3u8?token=x&utc=1709618828&lutc=1709626028")
    }

    @Test("Flussonic rewrites HLS and MPEG-TS URLs, keeping the query")
    func flussonic() {
        #expect(
            url("http://fs.example.com/ch1/index.m3u8?token=abc", "flussonic")
                == "http://fs.example.com/ch1/index-1709618828-3600.m3u8?token=abc")
        #expect(
            url("http://fs.example.com/ch1/video.m3u8", "flussonic")
                == "http://fs.example.com/ch1/video-1709618828-3600.m3u8")
        #expect(
            url("http://fs.example.com/ch1/mpegts", "flussonic")
                == "http://fs.example.com/ch1/timeshift_abs-1709618828.ts")
        #expect(url("http://fs.example.com/ch1/", "flussonic") == nil)
    }

    @Test("Xtream Codes uses the timeshift path with minutes and the UTC start")
    func xtream() {
        #expect(
            url("http://xc.example.com:8080/live/user/pass/1234.ts", "xc")
                == "http://xc.example.com:8080/timeshift/user/pass/60/2024-03-05:06-07/1234.ts")
        #expect(
            url("http://xc.example.com:8080/user/pass/1234", "xc")
                == "http://xc.example.com:8080/timeshift/user/pass/60/2024-03-05:06-07/1234.ts")
        #expect(url("http://xc.example.com/not/xtream/shape/at/all", "xc") == nil)
    }

    @Test("Without a template, default and append have nothing to build")
    func missingTemplate() {
        #expect(url("http://example.com/1.ts", "default") == nil)
        #expect(url("http://example.com/1.ts", "append") == nil)
    }

    @Test("UTC date parts are right around the epoch and leap days")
    func utcParts() {
        #expect(CatchupURLBuilder.utcParts(0) == ["Y": "1970", "m": "01", "d": "01", "H": "00", "M": "00", "S": "00"])
        #expect(
            CatchupURLBuilder.utcParts(951_782_400) == [
                "Y": "2000", "m": "02", "d": "29", "H": "00", "M": "00", "S": "00",
            ])
        #expect(CatchupURLBuilder.utcParts(-1) == ["Y": "1969", "m": "12", "d": "31", "H": "23", "M": "59", "S": "59"])
    }
}

@Suite("Identity")
struct CatalogIdentityTests {
    @Test("Names normalize to lowercase words without accents or punctuation")
    func normalizedNames() {
        #expect(CatalogIdentity.normalizedName("  BBC One HD! ") == "bbc one hd")
        #expect(CatalogIdentity.normalizedName("bbc-one hd") == "bbc one hd")
        #expect(CatalogIdentity.normalizedName("Télé-Matin") == "tele matin")
        #expect(CatalogIdentity.normalizedName("TR | ● TRT 4K UHD") == "tr trt 4k uhd")
        #expect(
            CatalogIdentity.normalizedName("Çocuk Şarkıları") == "cocuk sarkıları"
                || CatalogIdentity.normalizedName("Çocuk Şarkıları") == "cocuk sarkilari")
    }

    @Test("Identity prefers tvg-id, then the provider's id, then name and URL; the digest is stable")
    func identities() {
        #expect(
            CatalogIdentity.identity(kind: .live, tvgID: "BBC1.uk", providerID: "live:1", name: "x", url: "http://a")
                == "tvg:bbc1.uk")
        #expect(
            CatalogIdentity.identity(kind: .movie, tvgID: "ignored", providerID: "movie:9", name: "x", url: "http://a")
                == "id:movie:9")
        #expect(
            CatalogIdentity.identity(kind: .series, tvgID: nil, providerID: nil, name: "Show!", url: nil) == "name:show"
        )
        // FNV-1a 64 of "a\nb": pinned so that identities never change between versions.
        #expect(CatalogIdentity.hexDigest("a", "b") == "e5beb1190415e670")
        #expect(
            CatalogIdentity.identity(kind: .live, tvgID: "", providerID: nil, name: "A", url: "b") == "url:"
                + CatalogIdentity.hexDigest("a", "b"))
    }

    @Test("Series names and numbers are read from episode titles")
    func seriesTitles() {
        #expect(
            M3UItemMapper.seriesEpisode(inTitle: "American Gods | TR-ENG | S01 E02") == ("American Gods | TR-ENG", 1, 2)
        )
        #expect(M3UItemMapper.seriesEpisode(inTitle: "Dark S3E10") == ("Dark", 3, 10))
        #expect(M3UItemMapper.seriesEpisode(inTitle: "Sherlock - s02e01") == ("Sherlock", 2, 1))
        #expect(M3UItemMapper.seriesEpisode(inTitle: "Specials") == ("Specials", nil, nil))
        #expect(M3UItemMapper.seriesEpisode(inTitle: "Boss S01") == ("Boss S01", nil, nil))
    }
}
