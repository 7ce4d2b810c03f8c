import AsyncHTTPClient
import Foundation
import Testing
import TunerApp
import TunerServer
import TunerTesting

/// The stream proxy over real HTTP: ranges, validators, sharing, errors and security.
@Suite struct StreamProxyTests {
    @Test func fullGetIsServedFromOriginOnceThenFromDisk() async throws {
        let harness = try await ProxyHarness.start()
        let size = 3_000_000
        let url = try harness.proxyURL("/files/movie.mp4?size=\(size)")
        let cold = try await HTTP.fetch(url)
        #expect(cold.status == 200)
        #expect(cold.error == nil)
        #expect(cold.body == TestOrigin.content(name: "movie.mp4", range: 0..<size))
        #expect(cold.header("Content-Type") == "video/mp4")
        #expect(cold.header("ETag") == TestOrigin.etag(name: "movie.mp4", size: size))
        #expect(cold.header("Last-Modified") != nil)
        #expect(cold.header("Accept-Ranges") == "bytes")
        let sentAfterCold = harness.origin.bodyBytesSent
        #expect(sentAfterCold == size)

        let warm = try await HTTP.fetch(url)
        #expect(warm.body == cold.body)
        #expect(harness.origin.bodyBytesSent == sentAfterCold, "a warm read must not touch the origin")

        let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
        #expect(stats["entries"] as? Int == 1)
        #expect(stats["bytes"] as? Int == size)
        #expect(stats["originBytes"] as? Int == size)
        #expect((stats["hitBytes"] as? Int ?? 0) >= size)
        try await harness.stop()
    }

    @Test func rangeFormsGive206WithContentRange() async throws {
        let harness = try await ProxyHarness.start()
        let size = 1_000_000
        let url = try harness.proxyURL("/files/r.ts?size=\(size)&type=video/mp2t")
        let expected = TestOrigin.content(name: "r.ts", range: 0..<size)
        for (header, range) in [
            ("bytes=10-99", 10..<100), ("bytes=999000-", 999_000..<size), ("bytes=-500", (size - 500)..<size),
            ("bytes=0-0", 0..<1), ("bytes=500000-2000000", 500_000..<size), ("bytes=10-99", 10..<100),
        ] {
            let fetched = try await HTTP.fetch(url, headers: ["Range": header])
            #expect(fetched.status == 206, "\(header)")
            #expect(
                fetched.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)",
                "\(header)")
            #expect(fetched.header("Content-Length") == String(range.count))
            #expect(fetched.body == Array(expected[range]), "\(header)")
        }
        let unsatisfiable = try await HTTP.fetch(url, headers: ["Range": "bytes=\(size)-"])
        #expect(unsatisfiable.status == 416)
        #expect(unsatisfiable.header("Content-Range") == "bytes */\(size)")

        let head = try await HTTP.fetch(url, method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(size))
        #expect(head.body.isEmpty)
        let headRange = try await HTTP.fetch(url, method: "HEAD", headers: ["Range": "bytes=5-9"])
        #expect(headRange.status == 206)
        #expect(headRange.header("Content-Range") == "bytes 5-9/\(size)")

        // A malformed Range header is ignored (RFC 9110): the whole resource.
        let malformed = try await HTTP.fetch(url, headers: ["Range": "bytes=abc"])
        #expect(malformed.status == 200)
        #expect(malformed.body.count == size)
        // If-Range that does not match sends everything.
        let stale = try await HTTP.fetch(url, headers: ["Range": "bytes=0-9", "If-Range": "\"old\""])
        #expect(stale.status == 200)
        #expect(stale.body.count == size)
        try await harness.stop()
    }

    @Test func multiRangeGivesMultipartByteranges() async throws {
        let harness = try await ProxyHarness.start()
        let size = 200_000
        let url = try harness.proxyURL("/files/m.mp4?size=\(size)")
        let expected = TestOrigin.content(name: "m.mp4", range: 0..<size)
        _ = try await HTTP.fetch(url, headers: ["Range": "bytes=0-10"])  // learn the length
        let fetched = try await HTTP.fetch(url, headers: ["Range": "bytes=0-9,100-199,-5"])
        #expect(fetched.status == 206)
        let contentType = try #require(fetched.header("Content-Type"))
        #expect(contentType.hasPrefix("multipart/byteranges; boundary="))
        let boundary = String(contentType.dropFirst("multipart/byteranges; boundary=".count))
        #expect(fetched.header("Content-Length") == String(fetched.body.count))
        let parts = MultipartParser.parse(fetched.body, boundary: boundary)
        #expect(parts.count == 3)
        let wanted = [0..<10, 100..<200, (size - 5)..<size]
        for (part, range) in zip(parts, wanted) {
            #expect(part.contentRange == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
            #expect(part.body == Array(expected[range]))
        }
        try await harness.stop()
    }

    @Test func twentyColdReadersCostTheOriginTheFileOnce() async throws {
        let harness = try await ProxyHarness.start()
        let size = 8_000_000
        let url = try harness.proxyURL("/files/shared.mp4?size=\(size)&drip=65536,2")
        let expected = TestOrigin.content(name: "shared.mp4", range: 0..<size)
        try await withThrowingTaskGroup(of: Fetched.self) { group in
            for _ in 0..<20 { group.addTask { try await HTTP.fetch(url) } }
            for try await fetched in group {
                #expect(fetched.status == 200)
                #expect(fetched.body == expected)
            }
        }
        #expect(harness.origin.bodyBytesSent == size, "20 readers of one cold file must cost its size once")
        try await harness.stop()
    }

    @Test func bytesReachTheClientWhileTheOriginIsStillSending() async throws {
        let harness = try await ProxyHarness.start()
        let size = 2_000_000
        // The origin sends 64 KiB, then pauses for a minute: bytes that reach the client before
        // that minute is over cannot have waited for the file (however loaded the machine is).
        let url = try harness.proxyURL("/files/drip.mp4?size=\(size)&drip=65536,60000")
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await HTTP.client.execute(request, timeout: .seconds(30))
        var iterator = response.body.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        let sentWhenFirstArrived = harness.origin.bodyBytesSent
        #expect(first.readableBytes > 0)
        #expect(
            sentWhenFirstArrived < size / 2,
            "the first bytes must not wait for the file (origin had sent \(sentWhenFirstArrived))")
        #expect(Array(first.readableBytesView) == TestOrigin.content(name: "drip.mp4", range: 0..<first.readableBytes))
        // End the pause: the origin goes away, so the proxy's answer ends early.
        try await harness.origin.shutdown()
        while (try? await iterator.next()) != nil {}
        try await harness.stop()
    }

    @Test func theFreeDiskReserveIsHonoured() async throws {
        // A reserve larger than any disk: nothing may stay cached, yet playback works.
        let harness = try await ProxyHarness.start { $0.cacheMinimumFreeDisk = 1 << 50 }
        let size = 500_000
        let fetched = try await HTTP.fetch(try harness.proxyURL("/files/reserve.mp4?size=\(size)"))
        #expect(fetched.body == TestOrigin.content(name: "reserve.mp4", range: 0..<size))
        #expect(try await harness.cachedBytes(until: { $0 == 0 }) == 0)
        try await harness.stop()
    }

    @Test func aReaderOfARangeBeingFetchedWaitsInsteadOfFetching() async throws {
        let harness = try await ProxyHarness.start()
        let size = 2_000_000
        let url = try harness.proxyURL("/files/wait.mp4?size=\(size)&drip=65536,5")
        async let full = HTTP.fetch(url)
        // The full read's fetch is under way before the range is asked for (polled, bounded).
        for _ in 0..<400 where harness.server.engine.cache.statistics().activeFetches == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        let part = try await HTTP.fetch(url, headers: ["Range": "bytes=100000-199999"])
        #expect(part.body == TestOrigin.content(name: "wait.mp4", range: 100_000..<200_000))
        #expect(try await full.body.count == size)
        #expect(harness.origin.bodyBytesSent == size)
        try await harness.stop()
    }

    @Test func gapsAreFilledWithoutRefetchingCachedBytes() async throws {
        let harness = try await ProxyHarness.start()
        let size = 1_000_000
        let url = try harness.proxyURL("/files/gaps.mp4?size=\(size)")
        _ = try await HTTP.fetch(url, headers: ["Range": "bytes=100000-199999"])
        _ = try await HTTP.fetch(url, headers: ["Range": "bytes=500000-599999"])
        let before = harness.origin.bodyBytesSent
        #expect(before == 200_000)
        let full = try await HTTP.fetch(url)
        #expect(full.body == TestOrigin.content(name: "gaps.mp4", range: 0..<size))
        #expect(harness.origin.bodyBytesSent == size, "only the gaps are fetched")
        try await harness.stop()
    }

    @Test func originErrorsPassThroughAndFailuresMapTo502And504() async throws {
        // 4 s for an answer: a loaded CI machine running every suite at once can take over a second
        // to answer the 404 below, which a 1 s timeout turned into a 504.
        let harness = try await ProxyHarness.start { $0.upstreamTimeoutSeconds = 4 }
        let notFound = try await HTTP.fetch(try harness.proxyURL("/nothing-here.mp4"))
        #expect(notFound.status == 404)
        let unavailable = try await HTTP.fetch(try harness.proxyURL("/files/x.mp4?size=10&status=503&retryafter=7"))
        #expect(unavailable.status == 503)
        #expect(unavailable.header("Retry-After") == "7")
        let timeout = try await HTTP.fetch(try harness.proxyURL("/files/slow.mp4?size=10&delay=8000"))
        #expect(timeout.status == 504)
        // A port where nothing listens.
        let closed = try await HTTP.fetch(
            try harness.server.proxyURL(for: URL(string: "http://127.0.0.1:9/x.mp4")!).absoluteString)
        #expect(closed.status == 502)
        #expect(String(decoding: closed.body, as: UTF8.self).contains("unreachable"))
        let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
        let errors = try #require(stats["lastErrors"] as? [[String: Any]])
        #expect(
            errors.contains { ($0["url"] as? String)?.contains("nothing-here") == true && $0["status"] as? Int == 404 })
        #expect(errors.contains { $0["status"] as? Int == 504 })
        #expect(stats["entries"] as? Int == 0, "errors are never cached")
        try await harness.stop()
    }

    @Test func redirectsAreFollowedButNeverToOtherSchemes() async throws {
        let harness = try await ProxyHarness.start()
        let size = 50_000
        let followed = try await HTTP.fetch(try harness.proxyURL("/redirect/3/files/red.mp4?size=\(size)"))
        #expect(followed.status == 200)
        #expect(followed.body == TestOrigin.content(name: "red.mp4", range: 0..<size))
        let refused = try await HTTP.fetch(try harness.proxyURL("/redirect-to?url=file%3A%2F%2F%2Fetc%2Fpasswd"))
        #expect(refused.status == 502)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("not an http(s) URL"))
        let loop = try await HTTP.fetch(try harness.proxyURL("/redirect/30/files/far.mp4?size=10"))
        #expect(loop.status == 502)
        try await harness.stop()
    }

    @Test func badSignaturesAndBadLinksAreRefused() async throws {
        let harness = try await ProxyHarness.start()
        let good = try harness.proxyURL("/files/sig.mp4?size=100")
        var parts = good.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // .../stream/<signature>/<payload>/<name>: flip one character of the signature.
        let signatureIndex = parts.count - 3
        parts[signatureIndex] = (parts[signatureIndex].first == "A" ? "B" : "A") + parts[signatureIndex].dropFirst()
        let forged = try await HTTP.fetch(parts.joined(separator: "/"))
        #expect(forged.status == 403)
        #expect(harness.origin.requestCount == 0)

        let ftp = try await HTTP.fetch(
            harness.api + "/proxy-urls", method: "POST", json: #"{"url":"ftp://example.com/a.mp4"}"#)
        #expect(ftp.status == 400)
        let file = try await HTTP.fetch(
            harness.api + "/proxy-urls", method: "POST", json: #"{"url":"file:///etc/passwd"}"#)
        #expect(file.status == 400)
        let injected = try await HTTP.fetch(
            harness.api + "/proxy-urls", method: "POST",
            json: #"{"url":"http://127.0.0.1/a.mp4","headers":{"User-Agent":"x\r\nX-Evil: 1"}}"#)
        #expect(injected.status == 400)
        let garbage = try await HTTP.fetch(harness.api + "/proxy-urls", method: "POST", json: "{not json")
        #expect(garbage.status == 400)

        let made = try await HTTP.fetch(
            harness.api + "/proxy-urls", method: "POST",
            json: #"{"url":"\#(harness.origin.baseURL)/files/ok.mp4?size=10","headers":{"User-Agent":"TunerTest/1"}}"#)
        #expect(made.status == 201)
        let proxyURL = try #require(try HTTP.json(made)["proxyURL"] as? String)
        #expect(proxyURL.hasPrefix(harness.server.baseURL + "/stream/"))
        #expect(proxyURL.hasSuffix("/ok.mp4"))
        let played = try await HTTP.fetch(proxyURL)
        #expect(played.body == TestOrigin.content(name: "ok.mp4", range: 0..<10))
        try await harness.stop()
    }

    @Test func headersOfTheLinkAreSentUpstream() async throws {
        let harness = try await ProxyHarness.start()
        let url = try harness.proxyURL(
            "/files/h.mp4?size=100000", headers: ["User-Agent": "VLC/3.0", "Referer": "http://portal.example/"])
        _ = try await HTTP.fetch(url, headers: ["Range": "bytes=0-99", "User-Agent": "the-player"])
        let probe = try #require(harness.origin.lastRequestHeaders(path: "/files/h.mp4"))
        #expect(probe.first { $0.name.lowercased() == "user-agent" }?.value == "VLC/3.0")
        #expect(probe.first { $0.name.lowercased() == "referer" }?.value == "http://portal.example/")
        // Gap fills carry them too, with If-Range for the cached version.
        _ = try await HTTP.fetch(url, headers: ["Range": "bytes=5000-5099"])
        let gap = try #require(harness.origin.lastRequestHeaders(path: "/files/h.mp4"))
        #expect(gap.first { $0.name.lowercased() == "user-agent" }?.value == "VLC/3.0")
        #expect(gap.first { $0.name.lowercased() == "range" }?.value == "bytes=5000-5099")
        #expect(
            gap.first { $0.name.lowercased() == "if-range" }?.value == TestOrigin.etag(name: "h.mp4", size: 100_000))
        try await harness.stop()
    }

    @Test func uncacheableResponsesStreamThroughUncached() async throws {
        let harness = try await ProxyHarness.start { $0.cacheSize = 1_000_000 }
        let chunked = try await HTTP.fetch(try harness.proxyURL("/files/live.ts?size=300000&chunked=1"))
        #expect(chunked.status == 200)
        #expect(chunked.body == TestOrigin.content(name: "live.ts", range: 0..<300_000))
        let html = try await HTTP.fetch(try harness.proxyURL("/files/page.html?size=5000&type=text/html"))
        #expect(html.status == 200)
        #expect(html.body.count == 5000)
        let huge = try await HTTP.fetch(try harness.proxyURL("/files/huge.mp4?size=3000000"))
        #expect(huge.status == 200)
        #expect(huge.body == TestOrigin.content(name: "huge.mp4", range: 0..<3_000_000))
        let stats = try HTTP.json(try await HTTP.fetch(harness.api + "/cache/stats"))
        #expect(stats["entries"] as? Int == 0)
        #expect(stats["bytes"] as? Int == 0)
        try await harness.stop()
    }

    @Test func aChangedResourceIsNeverMixedWithOldBytes() async throws {
        let harness = try await ProxyHarness.start()
        let size = 400_000
        let url = try harness.proxyURL("/files/v.mp4?size=\(size)")
        let first = try await HTTP.fetch(url, headers: ["Range": "bytes=0-99999"])
        #expect(first.body == TestOrigin.content(name: "v.mp4", version: 0, range: 0..<100_000))
        harness.origin.bumpVersion("v.mp4")
        // The gap fill sends If-Range; the origin answers with the new version, so this response
        // cannot be completed from two versions: it ends early after old bytes only.
        let during = try await HTTP.fetch(url)
        let old = TestOrigin.content(name: "v.mp4", version: 0, range: 0..<size)
        let new = TestOrigin.content(name: "v.mp4", version: 1, range: 0..<size)
        if during.error == nil && during.body.count == size {
            #expect(during.body == new, "a complete body must be one version")
        } else {
            #expect(Array(old.prefix(during.body.count)) == during.body, "a cut-short body holds old bytes only")
        }
        let after = try await HTTP.fetch(url)
        #expect(after.status == 200)
        #expect(after.body == new)
        #expect(after.header("ETag") == TestOrigin.etag(name: "v.mp4", version: 1, size: size))
        try await harness.stop()
    }

    @Test func ignoredQueryParametersShareOneCacheEntry() async throws {
        let harness = try await ProxyHarness.start { $0.cacheIgnoredQueryParameters = ["token"] }
        let size = 100_000
        let first = try await HTTP.fetch(try harness.proxyURL("/files/t.mp4?size=\(size)&token=aaa"))
        let second = try await HTTP.fetch(try harness.proxyURL("/files/t.mp4?size=\(size)&token=bbb"))
        #expect(first.body == second.body)
        #expect(harness.origin.bodyBytesSent == size)
        try await harness.stop()
    }

    @Test func theCacheSurvivesARestart() async throws {
        let harness = try await ProxyHarness.start()
        let size = 500_000
        let originPath = "/files/keep.mp4?size=\(size)"
        _ = try await HTTP.fetch(try harness.proxyURL(originPath))
        let data = harness.dataDirectory
        try await harness.server.stop()
        var configuration = harness.server.engine.configuration
        configuration.dataDirectory = data
        let again = try await TunerServer.start(configuration: configuration)
        let url = try again.proxyURL(for: URL(string: harness.origin.baseURL + originPath)!).absoluteString
        let fetched = try await HTTP.fetch(url)
        #expect(fetched.body == TestOrigin.content(name: "keep.mp4", range: 0..<size))
        #expect(harness.origin.bodyBytesSent == size, "served from disk after the restart")
        // Proxy URLs made before the restart stay valid (the secret is kept).
        #expect(
            try harness.proxyURL(originPath).split(separator: "/").dropFirst(3)
                == url.split(separator: "/").dropFirst(3))
        try await again.stop()
        try await harness.origin.shutdown()
        try? FileManager.default.removeItem(atPath: data)
    }
}

/// Splits a multipart/byteranges body into its parts.
enum MultipartParser {
    struct Part {
        var contentRange: String?
        var body: [UInt8]
    }

    static func parse(_ body: [UInt8], boundary: String) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        var index = 0
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard needle.count <= body.count else { return nil }
            var position = start
            while position + needle.count <= body.count {
                if body[position] == needle[0] && Array(body[position..<(position + needle.count)]) == needle {
                    return position
                }
                position += 1
            }
            return nil
        }
        guard var start = find(delimiter, from: index) else { return [] }
        while true {
            index = start + delimiter.count
            if index + 2 <= body.count && body[index] == UInt8(ascii: "-") && body[index + 1] == UInt8(ascii: "-") {
                break
            }
            guard let headerEnd = find(Array("\r\n\r\n".utf8), from: index) else { break }
            let headerText = String(decoding: body[index..<headerEnd], as: UTF8.self)
            let contentRange = headerText.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-range:") }
                .map { $0.dropFirst("content-range:".count).trimmingCharacters(in: .whitespaces) }
            guard let next = find(Array("\r\n--\(boundary)".utf8), from: headerEnd + 4) else { break }
            parts.append(Part(contentRange: contentRange, body: Array(body[(headerEnd + 4)..<next])))
            start = next + 2
        }
        return parts
    }
}
