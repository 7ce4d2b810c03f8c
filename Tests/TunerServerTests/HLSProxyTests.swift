import Foundation
import MediaCache
import MediaFormats
import Streaming
import Testing
import TunerApp
import TunerServer
import TunerTesting

/// HLS through the proxy, with real streams made by ffmpeg (`HLSFixtures`) on the test origin and
/// real players (ffmpeg, headless Chromium) on the other side: playlist rewriting, byte-exact
/// playback, caching of segments, keys kept off the disk, and live playlists that keep moving.
@Suite struct HLSProxyTests {
    // MARK: Rewriting

    /// Every URI of every playlist the proxy serves (variants, segments, keys, init sections) is a
    /// signed proxy URL on the proxy, carrying the right origin URL and kind, and fetching it
    /// through the proxy gives the origin's bytes.
    @Test(arguments: HLSFixtures.Kind.allCases)
    func everyURIInServedPlaylistsIsAProxyURL(kind: HLSFixtures.Kind) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let stream = fixtures.stream(kind)
            let crawl = try await ProxiedPlaylistCrawl.run(
                harness, playlistURL: try harness.proxyURL(stream.staticPath))

            // Exactly the URIs the original playlists have, all rewritten.
            let expected: [StreamKind: Int] =
                switch kind {
                case .multiVariant: [.playlist: 2, .segment: 6]
                case .encrypted: [.key: 1, .segment: 3]
                case .fragmentedMP4: [.map: 1, .segment: 3]
                case .byteRange: [.segment: 3]
                case .separateAudio: [.playlist: 2, .map: 2, .segment: 6]
                }
            #expect(crawl.countsByKind == expected, "\(crawl.uris.map(\.origin))")
            #expect(crawl.notProxied.isEmpty, "URIs not rewritten: \(crawl.notProxied)")
            let originHost = "127.0.0.1:\(harness.origin.port)"
            #expect(!crawl.playlistTexts.contains { $0.contains(originHost) }, "a served playlist names the origin")

            // Each decoded origin URL is the fixture file the original playlist meant.
            let files = Set(stream.files.map { harness.origin.baseURL + "/static/" + $0 })
            for uri in crawl.uris {
                #expect(files.contains(uri.origin.absoluteString), "\(uri.origin) is not a file of \(stream)")
            }

            // And the proxy serves their bytes (byte ranges as the playlist says).
            for uri in crawl.uris where uri.kind != .playlist {
                let headers = uri.byteRange.map { ["Range": "bytes=\($0.lowerBound)-\($0.upperBound - 1)"] } ?? [:]
                let fetched = try await HTTP.fetch(uri.proxy, headers: headers)
                #expect(fetched.status == (uri.byteRange == nil ? 200 : 206), "\(uri.origin)")
                var expectedBytes = try [UInt8](
                    Data(
                        contentsOf: URL(
                            fileURLWithPath: fixtures.directory + uri.origin.path.dropFirst("/static".count))))
                if let range = uri.byteRange { expectedBytes = Array(expectedBytes[range]) }
                #expect(fetched.body == expectedBytes, "\(uri.origin)")
            }
            print(
                """
                HLS rewrite \(kind): \(crawl.uris.count) URIs in \(crawl.playlistTexts.count) playlists, all \
                proxied: \(crawl.countsByKind)
                """
            )
        }
    }

    /// URIs are resolved against the playlist's final URL, after the origin's redirects.
    @Test func urisResolveAgainstThePlaylistURLAfterRedirects() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let crawl = try await ProxiedPlaylistCrawl.run(
                harness, playlistURL: try harness.proxyURL("/redirect/2/static/vod/master.m3u8"), followVariants: false)
            let variants = crawl.uris.filter { $0.kind == .playlist }.map(\.origin.absoluteString).sorted()
            #expect(
                variants == [
                    harness.origin.baseURL + "/static/vod/high/index.m3u8",
                    harness.origin.baseURL + "/static/vod/low/index.m3u8",
                ])
        }
    }

    /// Players ask for playlists with `Range: bytes=0-` (ffmpeg and Chromium both do); the answer
    /// must still be the rewritten playlist, or every relative URI resolves against the proxy URL.
    @Test(arguments: HLSFixtures.Kind.allCases)
    func aPlaylistAskedForWithARangeIsRewrittenToo(kind: HLSFixtures.Kind) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let url = try harness.proxyURL(fixtures.stream(kind).staticPath)
            for attempt in ["first request", "after the playlist is known"] {
                let fetched = try await HTTP.fetch(url, headers: ["Range": "bytes=0-"])
                #expect(fetched.status == 200 || fetched.status == 206, "\(attempt)")
                let text = String(decoding: fetched.body, as: UTF8.self)
                let references = ProxiedPlaylistCrawl.playlistReferences(text)
                #expect(!references.isEmpty)
                let raw = references.map(\.uri).filter {
                    // Segments are named relative to the playlist's own URL.
                    let absolute = URL(string: $0, relativeTo: URL(string: url))?.absoluteString ?? $0
                    return !absolute.hasPrefix(harness.server.baseURL + "/stream/")
                }
                #expect(raw.isEmpty, "\(kind), \(attempt): not rewritten: \(raw)")
                if let range = fetched.header("Content-Range") {
                    #expect(
                        range == "bytes 0-\(fetched.body.count - 1)/\(fetched.body.count)",
                        "\(kind): the range must describe the rewritten playlist")
                }
            }
        }
    }

    // MARK: Playback

    /// ffmpeg copies the same packets through the proxy as directly from the origin, and a second
    /// playback comes from the cache: the origin sends no segment or init-section byte again.
    @Test(arguments: HLSFixtures.Kind.allCases)
    func ffmpegPlaysTheSameThroughTheProxyAndReplaysFromTheCache(kind: HLSFixtures.Kind) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            origin.serveDirectory(fixtures.directory)
            let stream = fixtures.stream(kind)
            let direct = try await md5(of: origin.baseURL + stream.staticPath)
            origin.resetCounters()

            let proxied = try harness.proxyURL(stream.staticPath)
            let first = try await md5(of: proxied)
            try #require(first == direct, "\(kind): the proxy changed the stream")
            try await waitForIdleCache(harness)
            let mediaAfterFirst = mediaBytes(origin)
            #expect(mediaAfterFirst > 0)
            let keyRequests = origin.requests(path: "/static/aes/key.bin")

            let second = try await md5(of: proxied)
            #expect(second == direct)
            try await waitForIdleCache(harness)
            #expect(
                mediaBytes(origin) == mediaAfterFirst,
                "\(kind): the second playback fetched segments again: \(origin.bodyBytesSentByPath)")
            if kind == .encrypted {
                // Keys are passed through, never kept: the second playback asks the origin again.
                #expect(origin.requests(path: "/static/aes/key.bin") > keyRequests)
            }
        }
    }

    /// Keys reach the player but never the disk: no cache entry, and no file in the data folder
    /// holds the key's bytes, while the segments around them are cached.
    @Test func encryptionKeysAreNotStored() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let proxied = try harness.proxyURL(fixtures.encrypted.staticPath)
            _ = try await md5(of: proxied)
            // A key's link named as a playlist (`/stream/<key link>/s0/…`) must not fetch the key
            // into the cache either: only playlists (and users' links) have segments.
            let playlistText = String(decoding: try await HTTP.fetch(proxied).body, as: UTF8.self)
            let keyLink = try #require(playlistText.firstMatch(of: /URI="([^"]+)"/)?.1)
            let keyPath = try #require(URL(string: String(keyLink))?.path)
            let keyDirectory = keyPath.split(separator: "/").prefix(3).joined(separator: "/")
            let misused = try await HTTP.fetch(harness.server.baseURL + "/" + keyDirectory + "/s0/seg0.ts")
            #expect(misused.status == 404, "\(keyDirectory)")
            try await waitForIdleCache(harness)
            harness.server.engine.cache.flush()

            let cache = harness.server.engine.cache
            let keyURL = URL(string: harness.origin.baseURL + "/static/aes/key.bin")!
            #expect((cache.status(of: keyURL)?.cachedBytes ?? 0) == 0, "the key is in the cache")
            let segmentURL = URL(string: harness.origin.baseURL + "/static/aes/seg0.ts")!
            let segmentSize =
                try FileManager.default.attributesOfItem(atPath: fixtures.path("aes/seg0.ts"))[.size] as? Int
            #expect(
                cache.status(of: segmentURL)?.cachedBytes == segmentSize.map(Int64.init),
                "segments should be cached, or this test proves nothing")

            let holders = try filesContaining(HLSFixtures.key, under: harness.dataDirectory)
            #expect(holders.isEmpty, "the key's bytes are on disk in \(holders)")
            #expect(harness.origin.requests(path: "/static/aes/key.bin") >= 1)
            let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
            print("HLS key test: stats \(stats)")
        }
    }

    /// `POST /api/v1/cache/preload` with `segments` or `seconds` fills exactly that much of a
    /// stream (the master's first variant), and the statistics count each kind apart.
    @Test(arguments: [#"{"segments":2}"#, #"{"seconds":4}"#])
    func hlsPreloadFillsTheFirstSegments(amount: String) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            origin.serveDirectory(fixtures.directory)
            let master = origin.baseURL + fixtures.multiVariant.staticPath
            let job = try await preloadToTheEnd(harness, #"{"url":"\#(master)","# + amount.dropFirst())
            #expect(job["segmentsDone"] as? Int == 2)
            #expect(job["segmentsTotal"] as? Int == 2)
            let fetchedSegments = origin.bodyBytesSentByPath.filter { $0.key.hasSuffix(".ts") && $0.value > 0 }
            #expect(fetchedSegments.count == 2, "\(fetchedSegments)")
            #expect(
                fetchedSegments.keys.allSatisfy { $0.hasSuffix("0.ts") || $0.hasSuffix("1.ts") }, "\(fetchedSegments)")
        }
    }

    /// A preload of a stream whose audio is a separate rendition fills the audio for the time
    /// the chosen video segments cover, so a player starts with sound from the cache.
    @Test func hlsPreloadTakesTheSeparateAudioAlong() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            origin.serveDirectory(fixtures.directory)
            let master = origin.baseURL + fixtures.separateAudio.staticPath
            let job = try await preloadToTheEnd(harness, #"{"url":"\#(master)","segments":2}"#)
            let total = job["segmentsTotal"] as? Int ?? 0
            #expect(
                job["segmentsDone"] as? Int == total && total >= 6,
                "video init + 2 segments, audio init + its first segments: \(job)")
            let fetched = Set(
                origin.bodyBytesSentByPath.filter { $0.value > 0 }.keys.map {
                    String($0.split(separator: "/").suffix(2).joined(separator: "/"))
                })
            for file in [
                "video/init_0.mp4", "video/seg0.m4s", "video/seg1.m4s", "audio/init_1.mp4", "audio/seg0.m4s",
                "audio/seg1.m4s",
            ] {
                #expect(fetched.contains(file), "\(file) was not preloaded: \(fetched.sorted())")
            }
            #expect(!fetched.contains("video/seg2.m4s"), "only the 2 segments asked for: \(fetched.sorted())")
        }
    }

    /// Starts a preload with `body`, waits (at most 10 s) until it is no longer running, expects
    /// it complete, and returns its job.
    private func preloadToTheEnd(_ harness: ProxyHarness, _ body: String) async throws -> [String: Any] {
        let started = try await HTTP.fetch(harness.api + "/cache/preload", method: "POST", json: body)
        #expect(started.status == 202, "\(String(decoding: started.body, as: UTF8.self))")
        let id = try #require(try HTTP.json(started)["id"] as? String)
        var job: [String: Any] = [:]
        for _ in 0..<400 {
            job = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/preloads/\(id)"))
            if job["state"] as? String != "running" { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(job["state"] as? String == "complete", "\(job)")
        return job
    }

    @Test func statisticsCountPlaylistsSegmentsAndKeysApart() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            _ = try await md5(of: try harness.proxyURL(fixtures.encrypted.staticPath))
            let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
            let streams = try #require(stats["streams"] as? [String: [String: Int]], "\(stats)")
            #expect((streams["playlist"]?["requests"] ?? 0) >= 1, "\(streams)")
            #expect((streams["segment"]?["requests"] ?? 0) >= 3, "\(streams)")
            #expect((streams["segment"]?["bytes"] ?? 0) > 0, "\(streams)")
            #expect((streams["key"]?["requests"] ?? 0) >= 1, "\(streams)")
            #expect(
                streams["key"]?["bytes"] == HLSFixtures.key.count * (streams["key"]?["requests"] ?? 0), "\(streams)")
        }
    }

    /// Serving a media playlist pre-fetches its first segments (3 by default) through the shared
    /// fetch path: the player then gets them from disk, and nothing is fetched twice.
    @Test func servingAPlaylistPrefetchesItsFirstSegments() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            origin.serveDirectory(fixtures.directory)
            let playlist = try await HTTP.fetch(try harness.proxyURL(fixtures.encrypted.staticPath))
            #expect(playlist.status == 200)
            // Pre-fetches start just after the playlist is answered: on a loaded machine the cache
            // can look idle before the last one has begun, so wait (at most 10 s) for them to begin.
            for _ in 0..<400
            where origin.bodyBytesSentByPath.filter({ $0.key.hasSuffix(".ts") && $0.value > 0 }).count < 3 {
                try await Task.sleep(for: .milliseconds(25))
            }
            try await waitForIdleCache(harness)
            let prefetched = origin.bodyBytesSentByPath.filter { $0.key.hasSuffix(".ts") && $0.value > 0 }
            #expect(prefetched.count == 3, "the first 3 segments are fetched before the player asks: \(prefetched)")
            let sent = mediaBytes(origin)
            // The player now asks for every segment: all from disk.
            let text = String(decoding: playlist.body, as: UTF8.self)
            let playlistURL = URL(string: try harness.proxyURL(fixtures.encrypted.staticPath))
            let segments = text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.hasSuffix(".ts") }.compactMap {
                URL(string: String($0), relativeTo: playlistURL)?.absoluteString
            }
            #expect(segments.count == 3 && segments.allSatisfy { $0.hasPrefix(harness.server.baseURL + "/stream/") })
            for segment in segments {
                let fetched = try await HTTP.fetch(segment)
                #expect(fetched.status == 200)
            }
            try await waitForIdleCache(harness)
            #expect(mediaBytes(origin) == sent, "segments were fetched twice: \(origin.bodyBytesSentByPath)")
        }
    }

    // MARK: Live

    /// A live playlist through the proxy moves on with the origin's, and is never older than half
    /// its target duration.
    @Test func liveServedPlaylistAdvances() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            try origin.serveLive(fixtures, name: "ch", window: 4)
            let url = try harness.proxyURL(origin.livePlaylistPath(name: "ch"))
            let target = HLSFixtures.segmentDuration

            let before = origin.liveMediaSequence(name: "ch")!
            let first = try await HTTP.fetch(url)
            #expect(first.status == 200)
            let firstPlaylist = MediaPlaylistSummary(first.body, url: url)
            #expect(firstPlaylist.mediaSequence >= before)
            #expect(firstPlaylist.uris.count == 4)
            #expect(
                firstPlaylist.uris.allSatisfy { $0.hasPrefix(harness.server.baseURL + "/stream/") },
                "\(firstPlaylist.uris)")
            #expect(!firstPlaylist.text.contains("#EXT-X-ENDLIST"))

            // Fetches about half a target duration apart; the served sequence grows, and each one
            // is at most one segment behind the origin at the time of asking (a copy at most
            // half a target duration old cannot be further behind).
            var sequences = [firstPlaylist.mediaSequence]
            for _ in 0..<12 where sequences.last! < firstPlaylist.mediaSequence + 2 {
                try await Task.sleep(for: .milliseconds(target * 500))
                let atOrigin = origin.liveMediaSequence(name: "ch")!
                let served = MediaPlaylistSummary(try await HTTP.fetch(url).body, url: url)
                #expect(
                    served.mediaSequence >= atOrigin - 1,
                    "served \(served.mediaSequence) while the origin was at \(atOrigin)")
                sequences.append(served.mediaSequence)
            }
            #expect(sequences.last! >= firstPlaylist.mediaSequence + 2, "served media sequences: \(sequences)")
            #expect(sequences == sequences.sorted(), "the served playlist went back: \(sequences)")

            // A jump at the origin shows through once the proxy's copy is older than half a target
            // duration (waited out with a margin; every copy from before the jump is older).
            origin.advanceLive(name: "ch", segments: 10)
            let jumped = origin.liveMediaSequence(name: "ch")!
            try await Task.sleep(for: .milliseconds(target * 500 + 700))
            let afterJump = MediaPlaylistSummary(try await HTTP.fetch(url).body, url: url)
            #expect(
                afterJump.mediaSequence >= jumped, "the proxy served a playlist older than half its target duration")

            // The newest segment is there through the proxy.
            let segment = try await HTTP.fetch(try #require(afterJump.uris.last))
            #expect(segment.status == 200)
            #expect(segment.body.first == 0x47)
        }
    }

    /// A media playlist names its segments by media sequence number under the playlist's own
    /// signed path: the same segment keeps its URL in every version of a live playlist, one that
    /// left the window lately still plays, one after the copy in memory expired is found by
    /// reloading the playlist, and numbers the playlist never had (or are not numbers) are 404.
    @Test func liveSegmentsAreNamedByTheirSequenceNumbers() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            try origin.serveLive(fixtures, name: "seq", window: 4)
            let url = try harness.proxyURL(origin.livePlaylistPath(name: "seq"))
            let target = HLSFixtures.segmentDuration
            let first = MediaPlaylistSummary(try await HTTP.fetch(url).body, url: url)
            // `<base>/stream/<nonce>/<sealed playlist link>/s<number>/<name>`, numbered from the
            // media sequence, the name the origin's (its segment N is `seg<N>.ts`).
            let playlistPath = "/" + URL(string: url)!.path.split(separator: "/").prefix(3).joined(separator: "/")
            for (offset, uri) in first.uris.enumerated() {
                let parts = URL(string: uri)!.path.split(separator: "/")
                #expect("/" + parts.prefix(3).joined(separator: "/") == playlistPath, "\(uri)")
                #expect(parts.count == 5 && parts[3] == "s\(first.mediaSequence + offset)", "\(uri)")
                #expect(parts.last.map(String.init) == "seg\(first.mediaSequence + offset).ts")
            }

            // One segment on: the segments both versions have keep their URLs.
            origin.advanceLive(name: "seq", segments: 1)
            try await Task.sleep(for: .milliseconds(target * 500 + 300))
            let next = MediaPlaylistSummary(try await HTTP.fetch(url).body, url: url)
            #expect(next.mediaSequence > first.mediaSequence)
            // The origin's clock moves the window on as well, so on a slow machine more than one
            // segment may have gone: compare what both versions still have, whatever that is.
            let gone = next.mediaSequence - first.mediaSequence
            let kept = max(0, first.uris.count - gone)
            #expect(Array(first.uris.suffix(kept)) == Array(next.uris.prefix(kept)))

            // Ten on: the first version's oldest segment has left the window, and is still served
            // with the origin's bytes.
            origin.advanceLive(name: "seq", segments: 10)
            try await Task.sleep(for: .milliseconds(target * 500 + 300))
            let later = MediaPlaylistSummary(try await HTTP.fetch(url).body, url: url)
            #expect(later.mediaSequence > first.mediaSequence + first.uris.count)
            let departed = try await HTTP.fetch(first.uris[0])
            #expect(departed.status == 200)
            let direct = try await HTTP.fetch(
                origin.baseURL + origin.liveSegmentPath(name: "seq", number: first.mediaSequence))
            #expect(departed.body == direct.body && !direct.body.isEmpty)

            // Further on, with the proxy's copy expired and no player reloading it: a segment
            // of the origin's newest version is found by reloading the playlist.
            origin.advanceLive(name: "seq", segments: 3)
            try await Task.sleep(for: .milliseconds(target * 500 + 300))
            // The window's last segment: still there if the origin moves on meanwhile.
            let newest = origin.liveMediaSequence(name: "seq")! + 3
            let newestURL = harness.server.baseURL + playlistPath + "/s\(newest)/any-name.ts"
            let fetched = try await HTTP.fetch(newestURL)
            #expect(fetched.status == 200, "\(newestURL)")
            #expect(fetched.body.first == 0x47)

            // Numbers the playlist never had, and what is not a number.
            for bad in ["s\(newest + 1_000)", "s-1", "x\(newest)", "s", "s99999999999999999999", "s1e3"] {
                let answer = try await HTTP.fetch(harness.server.baseURL + playlistPath + "/\(bad)/a.ts")
                #expect(answer.status == 404, "\(bad)")
            }
            // And a playlist link that is not this server's.
            var forged = playlistPath.split(separator: "/").map(String.init)
            forged[2] = String(forged[2].reversed())
            let refused = try await HTTP.fetch(
                harness.server.baseURL + "/" + forged.joined(separator: "/") + "/s\(newest)/a.ts")
            #expect(refused.status == 403 || refused.status == 400, "\(refused.status)")
        }
    }

    /// ffmpeg follows the live stream through the proxy for 20 s of media without a single error.
    @Test func ffmpegFollowsALiveStreamThroughTheProxy() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            let origin = harness.origin
            try origin.serveLive(fixtures, name: "ch", window: 4)
            let url = try harness.proxyURL(origin.livePlaylistPath(name: "ch"))
            let result = try await ExternalCommand.run(
                "ffmpeg", ["-nostdin", "-v", "error", "-i", url, "-t", "20", "-c", "copy", "-f", "null", "-"],
                timeout: .seconds(150))
            #expect(result.succeeded, "\(result.transcript)")
            #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
            // 20 s of 2 s segments from a 4-segment window: the playlist was reloaded many times.
            #expect(origin.livePlaylistRequests(name: "ch") >= 3)
            let segments = origin.bodyBytesSentByPath.keys.filter { $0.hasPrefix("/live/ch/seg") }
            #expect(segments.count >= 8, "\(segments.sorted())")
        }
    }

    // MARK: Browser

    /// Headless Chromium plays the proxied multivariant playlist in a <video> element (Chromium
    /// plays HLS natively since version 141) past 5 s.
    @Test func chromiumPlaysTheProxiedStream() async throws {
        guard requireTools("ffmpeg", "chromium", "chromedriver", "python3") else { return }
        guard await requireSelenium() else { return }
        let fixtures = try await HLSFixtures.shared()
        try await withHarness { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let master = try harness.proxyURL(fixtures.multiVariant.staticPath)

            // The page comes from a second origin, as a web page embedding a Tuner stream would.
            let pages = try await TestOrigin.start()
            let site = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-page-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: site) }
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
            try """
            <!doctype html>
            <html><body>
            <video id="video" muted autoplay playsinline src="\(master)"></video>
            </body></html>
            """.write(toFile: site + "/player.html", atomically: true, encoding: .utf8)
            pages.serveDirectory(site)

            let result = try await HeadlessChromium.run(
                steps: "driver.get(args[0])\n" + HeadlessChromium.playVideoSteps(),
                arguments: [pages.baseURL + "/static/player.html"], chromium: ExternalCommand.path(of: "chromium")!,
                chromedriver: ExternalCommand.path(of: "chromedriver")!, timeout: .seconds(150))
            try await pages.shutdown()
            let report = result.output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
            if report.hasPrefix("unsupported") {
                // Chromium builds without native HLS: say so instead of failing on a missing feature.
                let message = "Chromium here cannot play HLS natively (\(report)); hls.js is not available offline"
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record(Comment(rawValue: message))
                } else {
                    print("skipped: \(message)")
                }
                return
            }
            #expect(result.succeeded, "\(result.transcript)")
            #expect(report.hasPrefix("played"), "\(result.transcript)")
            print("HLS Chromium: \(report)")
            #expect(
                harness.origin.bodyBytesSentByPath.keys.contains { $0.hasSuffix(".ts") },
                "the browser's segments came through the proxy")
        }
    }
}

// MARK: - Helpers

/// One URI found in a served playlist.
private struct FoundURI {
    /// As served (absolute, or resolved against the playlist's proxy URL).
    var proxy: String
    /// The origin URL the proxy URL carries.
    var origin: URL
    var kind: StreamKind?
    /// The `EXT-X-BYTERANGE` that came with it, as offsets.
    var byteRange: Range<Int>?
}

/// Fetches a playlist through the proxy and every playlist it names, collecting their URIs.
private struct ProxiedPlaylistCrawl {
    var uris: [FoundURI] = []
    var notProxied: [String] = []
    var playlistTexts: [String] = []

    var countsByKind: [StreamKind: Int] {
        Dictionary(uris.map { ($0.kind ?? .other, 1) }, uniquingKeysWith: +)
    }

    static func run(_ harness: ProxyHarness, playlistURL: String, followVariants: Bool = true) async throws
        -> ProxiedPlaylistCrawl
    {
        var crawl = ProxiedPlaylistCrawl()
        var queue = [playlistURL]
        while !queue.isEmpty {
            let url = queue.removeFirst()
            let fetched = try await HTTP.fetch(url)
            guard fetched.status == 200 else {
                Issue.record("\(url) answered \(fetched.status)")
                continue
            }
            let text = String(decoding: fetched.body, as: UTF8.self)
            #expect(text.hasPrefix("#EXTM3U"), "\(url) is not a playlist")
            crawl.playlistTexts.append(text)
            for reference in playlistReferences(text) {
                let absolute = URL(string: reference.uri, relativeTo: URL(string: url))?.absoluteString ?? reference.uri
                guard absolute.hasPrefix(harness.server.baseURL + "/stream/"),
                    let link = try await decode(absolute, signer: harness.server.engine.signer)
                else {
                    crawl.notProxied.append(reference.uri)
                    continue
                }
                crawl.uris.append(
                    FoundURI(proxy: absolute, origin: link.url, kind: link.kind, byteRange: reference.byteRange))
                if link.kind == .playlist, followVariants { queue.append(absolute) }
            }
        }
        return crawl
    }

    /// The link a proxy URL carries, if its signature is this server's. A media playlist's
    /// segment (`/stream/<playlist's link>/s<number>/<name>`) is looked up in the playlist as the
    /// origin has it, read here with MediaFormats' parser.
    static func decode(_ proxyURL: String, signer: StreamLinkSigner) async throws -> StreamLink? {
        guard let path = URL(string: proxyURL)?.path else { return nil }
        let parts = path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "stream",
            let link = try? signer.verify(signature: parts[1], payload: parts[2])
        else { return nil }
        guard parts.count == 5 else { return parts.count == 4 ? link : nil }
        guard parts[3].hasPrefix("s"), let number = Int(parts[3].dropFirst()) else { return nil }
        let playlist = try HLSPlaylist(parsing: try await HTTP.fetch(link.url.absoluteString).body)
        guard let position = playlist.segmentPosition(mediaSequenceNumber: number),
            let url = HLSRewriter(baseURL: link.url).resolve(playlist.segments[position].uri)
        else { return nil }
        #expect(parts[4] == url.lastPathComponent)
        return StreamLink(url: url, headers: link.headers, kind: .segment, playlist: link.url)
    }

    /// Every URI of a playlist: the lines that are not tags, and `URI="…"` in tags, with the byte
    /// range that applies to a segment line.
    static func playlistReferences(_ text: String) -> [(uri: String, byteRange: Range<Int>?)] {
        var references: [(String, Range<Int>?)] = []
        var pendingRange: Range<Int>?
        var nextOffset: [String: Int] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if line.hasPrefix("#EXT-X-BYTERANGE:") {
                    let spec = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")
                    let length = Int(spec[0]) ?? 0
                    let offset = spec.count > 1 ? Int(spec[1]) ?? 0 : -1
                    pendingRange = offset >= 0 ? offset..<(offset + length) : -1..<(length - 1)
                }
                var rest = Substring(line)
                while let start = rest.range(of: "URI=\"") {
                    let after = rest[start.upperBound...]
                    guard let end = after.firstIndex(of: "\"") else { break }
                    references.append((String(after[..<end]), nil))
                    rest = after[after.index(after: end)...]
                }
            } else {
                var range = pendingRange
                if let pending = range, pending.lowerBound < 0 {
                    // No offset: it follows the previous range of the same resource.
                    let start = nextOffset[line] ?? 0
                    range = start..<(start + pending.upperBound + 1)
                }
                if let range { nextOffset[line] = range.upperBound }
                references.append((line, range))
                pendingRange = nil
            }
        }
        return references
    }
}

/// The media sequence and URIs of a media playlist.
private struct MediaPlaylistSummary {
    var text: String
    var mediaSequence = -1
    var uris: [String] = []

    /// `url` is where the playlist was read from: its URIs are resolved against it.
    init(_ body: [UInt8], url: String) {
        text = String(decoding: body, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") {
                mediaSequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? -1
            } else if !line.hasPrefix("#"), !line.isEmpty {
                uris.append(URL(string: String(line), relativeTo: URL(string: url))?.absoluteString ?? String(line))
            }
        }
    }
}

/// The MD5 of every packet of every stream, copied: what a player would get, byte for byte.
private func md5(of url: String) async throws -> String {
    let result = try await ExternalCommand.run(
        "ffmpeg", ["-nostdin", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "md5", "-"],
        timeout: .seconds(60))
    #expect(result.succeeded, "\(result.transcript)")
    #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Origin body bytes of media: segments and init sections (not playlists, not keys).
private func mediaBytes(_ origin: TestOrigin) -> Int {
    origin.bodyBytesSentByPath.filter { path, _ in
        path.hasSuffix(".ts") || path.hasSuffix(".m4s") || path.hasSuffix(".mp4")
    }.values.reduce(0, +)
}

/// Waits until the cache has no upstream fetch running (pre-fetches included), so origin counters
/// are settled. Bounded, and not an assertion on time.
private func waitForIdleCache(_ harness: ProxyHarness) async throws {
    for _ in 0..<400 where harness.server.engine.cache.statistics().activeFetches > 0 {
        try await Task.sleep(for: .milliseconds(25))
    }
    // Counters move when the origin's socket write completes, just after the client saw the bytes.
    try await Task.sleep(for: .milliseconds(100))
}

/// Regular files under `directory` whose contents include `needle`.
private func filesContaining(_ needle: [UInt8], under directory: String) throws -> [String] {
    var holders: [String] = []
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
    while let relative = walker.nextObject() as? String {
        let path = directory + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else { continue }
        if data.range(of: Data(needle)) != nil { holders.append(relative) }
    }
    return holders
}

private func withHarness(_ body: (ProxyHarness) async throws -> Void) async throws {
    let harness = try await ProxyHarness.start()
    do {
        try await body(harness)
    } catch {
        try await harness.stop()
        throw error
    }
    try await harness.stop()
}

/// True when every tool is installed. Otherwise the test should return: a missing tool fails it
/// when `CI=true` (CI must have every tool, so a silent skip would hide lost coverage), and
/// elsewhere it prints "skipped: …" naming what to install.
func requireTools(_ names: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let hints = [
        "ffmpeg": "apt-get install ffmpeg", "chromium": "apt-get install chromium",
        "chromedriver": "apt-get install chromium-driver",
    ]
    let missing = names.filter { ExternalCommand.path(of: $0) == nil }
    guard !missing.isEmpty else { return true }
    let message = missing.map { "\($0) is missing" + (hints[$0].map { " (\($0))" } ?? "") }.joined(separator: "; ")
    reportMissing(message, sourceLocation: sourceLocation)
    return false
}

/// The Selenium module for python3, which the Chromium test drives the browser with.
func requireSelenium(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    let check = try? await ExternalCommand.run("python3", ["-c", "import selenium"])
    guard check?.succeeded != true else { return true }
    reportMissing("the python3 module selenium is missing (pip install selenium)", sourceLocation: sourceLocation)
    return false
}

private func reportMissing(_ message: String, sourceLocation: SourceLocation) {
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    } else {
        print("skipped: \(message)")
    }
}
