import Foundation
import MediaFormats
import Testing
import TunerTesting

/// Real playlists from other projects (../shared/data, see its SOURCES.md), parsed, compared
/// with what those projects expect where they say, and round-tripped through the writer.
@Suite("M3U conformance")
struct M3UConformanceTests {
    /// Parses a file in awkward 4 KiB - 1 chunks, checks the count of entries against an
    /// independent count of `#EXTINF` lines, and checks that writing and re-reading gives the
    /// same model.
    private func check(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> M3UPlaylist {
        let data = try Data(contentsOf: url)
        let playlist = IPTVTestSupport.parse(Array(data), chunkSize: 4095)
        #expect(
            playlist == M3UParser.parse(data), "\(url.lastPathComponent): chunked differs from whole",
            sourceLocation: sourceLocation)
        let reparsed = M3UParser.parse(M3UWriter().string(for: playlist))
        #expect(
            reparsed.header == playlist.header, "\(url.lastPathComponent): header round trip",
            sourceLocation: sourceLocation)
        #expect(
            reparsed.entries == playlist.entries, "\(url.lastPathComponent): entries round trip",
            sourceLocation: sourceLocation)
        #expect(
            reparsed.warnings.isEmpty, "\(url.lastPathComponent): written playlist has warnings \(reparsed.warnings)",
            sourceLocation: sourceLocation)
        return playlist
    }

    @Test func iptvOrgPlaylistsParseCompletelyAndRoundTrip() throws {
        let files = IPTVTestSupport.files(under: "iptv-org-iptv", suffix: ".m3u")
        let streamsDirectory = IPTVTestSupport.dataDirectory.appendingPathComponent("iptv-org-iptv/streams/").path
        let streams = files.filter { $0.path.hasPrefix(streamsDirectory) }
        #expect(streams.count == 327)
        #expect(files.count == 431)
        var entryCount = 0
        var streamEntryCount = 0
        for file in files {
            let playlist = try check(file)
            let expected = IPTVTestSupport.countExtInfLines(try Data(contentsOf: file))
            #expect(playlist.entries.count == expected, "\(file.path)")
            #expect(playlist.warnings.isEmpty, "\(file.path): \(playlist.warnings)")
            #expect(playlist.entries.allSatisfy { !$0.url.isEmpty && !$0.title.isEmpty }, "\(file.path)")
            entryCount += playlist.entries.count
            if file.path.hasPrefix(streamsDirectory) { streamEntryCount += playlist.entries.count }
        }
        #expect(streamEntryCount == 15_328)
        #expect(entryCount > streamEntryCount)
    }

    @Test func iptvOrgGeneratedPlaylistsKeepHeadersAndKodiProperties() throws {
        let files = IPTVTestSupport.files(under: "iptv-org-iptv/tests", suffix: ".m3u")
        let entries = try files.flatMap { try M3UParser.parse(Data(contentsOf: $0)).entries }
        #expect(entries.contains { $0.userAgent != nil || $0.httpReferrer != nil || !$0.vlcOptions.isEmpty })
        #expect(entries.contains { !$0.httpHeaders.isEmpty })
        let streams = try M3UParser.parse(IPTVTestSupport.data("iptv-org-iptv/streams/us.m3u")).entries
        let withReferrer = try #require(streams.first { $0.vlcOptions.contains { $0.name == "http-referrer" } })
        #expect(withReferrer.httpHeaders.contains { $0.name == "Referer" })
    }

    @Test func m3uKitValidPlaylist() throws {
        let playlist = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent("M3UKit/Tests/M3UKitTests/Resources/valid.m3u"))
        #expect(playlist.header.tvgURLs.count == 13)
        #expect(playlist.header.tvgURLs.first == "https://iptv-org.github.io/epg/guides/al/ipko.com.epg.xml")
        #expect(playlist.entries.count == 106)
        #expect(playlist.warnings.isEmpty)
        let first = try #require(playlist.entries.first)
        #expect(first.otherTags == ["#EXT-X-SESSION-DATA:DATA-ID=\"blablabla\""])
        #expect(first.tvgID == "")
        #expect(first.title == "TV SHOW S01 E01")
        let second = playlist.entries[1]
        #expect(second.tvgID == "BBCNews.uk")
        #expect(second.tvgCountry == "INT")
        #expect(second.tvgLanguage == "English")
        #expect(second.groups == ["News"])
        #expect(second.title == "BBC News HD (720p) [Geo-blocked]")
        #expect(second.url == "https://cdnuk001.broadcastcdn.net/KUK-BBCNEWSHD/index.m3u8")
    }

    @Test func m3uKitInvalidPlaylistIsReadWithWarnings() throws {
        let url = IPTVTestSupport.dataDirectory.appendingPathComponent("M3UKit/Tests/M3UKitTests/Resources/invalid.m3u")
        let playlist = try check(url)
        // The EXTINF without a duration is still an entry; the `#EXTNF` typo is kept as an
        // unknown tag on the entry its URL line completes.
        #expect(playlist.warnings.contains { $0.kind == .missingDuration && $0.line == 2 })
        let first = try #require(playlist.entries.first)
        #expect(first.tvgID == "BBCNews.uk")
        #expect(first.title == "BBC News HD (720p) [Geo-blocked]")
        #expect(first.duration == -1)
        let typo = try #require(playlist.entries.first { $0.otherTags.contains { $0.hasPrefix("#EXTNF") } })
        #expect(typo.title == "")
        #expect(playlist.entries.count == IPTVTestSupport.countExtInfLines(try Data(contentsOf: url)) + 1)
    }

    @Test func swiftM3UKitMalformedPlaylist() throws {
        let playlist = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent(
                "SwiftM3UKit/Tests/SwiftM3UKitTests/Resources/malformed.m3u"))
        #expect(
            playlist.entries.map(\.title) == [
                "Valid Channel", "Broken Quote", "Invalid Duration", "No Attributes Channel", "Another Valid",
            ])
        #expect(
            playlist.entries.map(\.url) == [
                "http://example.com/valid", "http://example.com/broken", "http://example.com/invalid",
                "http://example.com/noattr", "http://example.com/another",
            ])
        #expect(playlist.entries[2].duration == -1)
        #expect(playlist.entries[4].tvgID == "another")
        #expect(playlist.warnings.contains { $0.kind == .invalidDuration && $0.line == 6 })
        #expect(playlist.warnings.contains { $0.kind == .suspiciousQuote && $0.line == 4 })
        #expect(
            playlist.warnings.contains {
                $0.kind == .junkLine && $0.line == 11 && $0.detail == "Random line without URL"
            })
    }

    @Test func swiftM3UKitSamples() throws {
        let small = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent(
                "SwiftM3UKit/Tests/SwiftM3UKitTests/Resources/sample_small.m3u"))
        #expect(small.entries.count == 6)
        #expect(small.entries[3].duration == 7200)
        #expect(small.entries[3].tvgName == "The Matrix (1999)")
        let large = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent(
                "SwiftM3UKit/Tests/SwiftM3UKitTests/Resources/sample_large.m3u"))
        #expect(large.entries.count == 22)
        #expect(large.entries.contains { $0.groupTitle == "Series|Drama" })
        #expect(large.entries.contains { $0.title == "Kurtlar Vadisi Sezon 1 Bölüm 1" })
        #expect(small.warnings.isEmpty && large.warnings.isEmpty)
    }

    @Test func threadfinPlaylist() throws {
        let playlist = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent("Threadfin/src/internal/m3u-parser/test_list_1.m3u"))
        #expect(playlist.header.tvgURLs == ["http://example.com/file.xml", "http://example.com/threadfin.xml"])
        #expect(
            playlist.entries.map(\.title) == [
                "Channel 1", "Channel 2", "Sample artist - Sample title", "Example Artist - Example title",
            ])
        #expect(playlist.entries.map(\.url) == (1...4).map { "http://example.com/stream/\($0)" })
        #expect(playlist.entries.map(\.duration) == [0, 0, 123, 321])
        #expect(playlist.entries[0].channelNumber == "1")
        #expect(playlist.entries[0].extraAttributes == [M3UAttribute(name: "channelID", value: "1")])
        #expect(playlist.entries[1].tvgID == "tvg.id.2")
        #expect(playlist.warnings.isEmpty)
    }

    @Test func globocomIPTVCases() throws {
        let directory = "globocom-m3u8/tests/playlists_extracted/"
        let custom = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent(directory + "IPTV_PLAYLIST_WITH_CUSTOM_TAGS.m3u8"))
        let entry = try #require(custom.entries.first)
        #expect(custom.entries.count == 1)
        #expect(entry.title == "Channel1")
        #expect(entry.tvgID == "channel1")
        #expect(entry.groupTitle == "Group1")
        #expect(entry.extGroup == "ExtGroup1")
        #expect(entry.catchup == "flussonic")
        #expect(entry.catchupDays == "7")
        #expect(entry.timeshift == "0")
        #expect(
            entry.vlcOptions == [
                M3UAttribute(name: "video-filter", value: "invert"), M3UAttribute(name: "param2", value: "value2"),
            ])
        #expect(entry.url == "http://str00.iptv.domain/7331/mpegts?token=longtokenhere")
        let early = try check(
            IPTVTestSupport.dataDirectory.appendingPathComponent(directory + "IPTV_PLAYLIST_WITH_EARLY_EXTINF.m3u8"))
        #expect(early.entries.map(\.title) == ["Info"])
        #expect(early.entries.first?.duration == 0)
        #expect(early.entries.first?.vlcOptions.count == 2)
    }

    @Test(.enabled(if: IPTVTestSupport.canRunProcesses, "inflating the corpus needs python3"))
    func m3u8DecoderProviderPlaylistHasEvery194918Entries() async throws {
        let data = try IPTVTestSupport.data("M3U8Decoder/Tests/M3U8DecoderTests/m3u8/tv_channels_private.m3u.zlib")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tv_channels_private-\(UUID().uuidString).m3u")
        defer { try? FileManager.default.removeItem(at: file) }
        try await IPTVTestSupport.inflateRawDeflate(data, to: file)

        // Stream the 21 MB file through the parser in 64 KiB reads, as the catalog will.
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var parser = M3UParser()
        // Each entry is also written out and read back by a second parser as it streams by, so
        // the round trip is checked on all 194,918 entries without holding them.
        var echo = M3UParser()
        let writer = M3UWriter()
        var count = 0
        var live = 0
        var movies = 0
        var series = 0
        var roundTripMismatches = 0
        var first: M3UEntry?
        var warnings: [M3UWarning] = []
        let handleEvent: (M3UParser.Event) -> Void = { event in
            switch event {
            case .entry(let entry):
                count += 1
                var echoed: [M3UEntry] = []
                echo.feed(Array(writer.lines(for: entry).utf8)) {
                    if case .entry(let again) = $0 { echoed.append(again) }
                }
                if echoed != [entry] { roundTripMismatches += 1 }
                if first == nil { first = entry }
                if entry.url.contains("/movie/") {
                    movies += 1
                } else if entry.url.contains("/series/") {
                    series += 1
                } else {
                    live += 1
                }
            case .warning(let warning): warnings.append(warning)
            case .header: break
            }
        }
        while let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty {
            parser.feed(chunk, onEvent: handleEvent)
        }
        parser.finish(onEvent: handleEvent)
        #expect(count == 194_918)
        #expect(roundTripMismatches == 0)
        #expect(live == 12_759)
        #expect(movies == 68_152)
        #expect(series == 114_007)
        #expect(warnings.isEmpty)
        #expect(first?.title == "TR | ● ☾☆ INFO GOODTV")
        #expect(first?.url == "http://ios.liveurl.xyz:8080/username/password/369872")
        #expect(first?.duration == -1)
    }
}

extension IPTVTestSupport {
    /// Inflates raw DEFLATE (no zlib header) with the system's python3 — the test corpus is
    /// stored compressed and Foundation on Linux has no DEFLATE API.
    static var canRunProcesses: Bool {
        #if os(macOS) || os(Linux)
            true
        #else
            false
        #endif
    }

    static func inflateRawDeflate(_ data: Data, to file: URL) async throws {
        let input = file.appendingPathExtension("deflate")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        // ExternalCommand, not Foundation's Process: see TunerTesting.ChildProcess.
        let inflate = try await ExternalCommand.run(
            "python3",
            [
                "-c",
                "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read(), -15))",
                input.path, file.path,
            ])
        try #require(inflate.succeeded, "python3 could not inflate the corpus: \(inflate.transcript)")
    }
}
