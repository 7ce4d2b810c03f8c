import Foundation
import NIOCore
import Testing
import TunerTesting

@testable import MediaCache

/// A small answer whose bytes are all cached is read before the response is made, so the server
/// can send it with its head in one write; anything else streams as before.
@Suite struct InlineAnswerTests {
    @Test func aSmallCachedRangeIsReadUpFrontAndMatchesTheStreamedBytes() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try ExhaustionTests.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 300_000
        let url = URL(string: "\(origin.baseURL)/files/inline.bin?size=\(size)")!
        let whole = try #require(await cache.serve(MediaRequest(url: url)).collectBody(limit: size))
        #expect(whole.count == size)

        let cached = await cache.serve(MediaRequest(url: url, range: "bytes=1000-66535"))
        #expect(cached.status == 206)
        let bytes = try #require(cached.body?.bytes, "a cached 64 KiB range is read up front")
        #expect(Array(bytes.readableBytesView) == Array(whole[1000...66535]))
        #expect(cached.headers.first(name: "Content-Length") == "65536")
        #expect(try #require(await cached.collectBody(limit: size)) == Array(whole[1000...66535]))

        // As long as the sendfile threshold or longer: streamed (as a file region where it can be).
        let long = await cache.serve(MediaRequest(url: url, range: "bytes=0-199999"))
        #expect(long.status == 206)
        #expect(long.body?.bytes == nil)
        #expect(try #require(await long.collectBody(limit: size)) == Array(whole[0..<200_000]))
        try await cache.shutdown()
        try await origin.shutdown()
    }

    @Test func aRangeWithUncachedBytesStreamsAndFetchesThem() async throws {
        let origin = try await TestOrigin.start()
        let (cache, directory) = try ExhaustionTests.makeCache()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let size = 4 << 20
        let url = URL(string: "\(origin.baseURL)/files/partial.bin?size=\(size)")!
        let head = try #require(
            await cache.serve(MediaRequest(url: url, range: "bytes=0-65535")).collectBody(limit: size))
        #expect(head.count == 65536)

        // The first half is held (or on its way), the rest is not: planned and fetched as before.
        let straddling = await cache.serve(MediaRequest(url: url, range: "bytes=60000-70000"))
        #expect(straddling.status == 206)
        #expect(straddling.body?.bytes == nil)
        let body = try #require(await straddling.collectBody(limit: size))
        #expect(body.count == 10001)
        #expect(Array(body.prefix(5536)) == Array(head[60000...]))
        try await cache.shutdown()
        try await origin.shutdown()
    }
}
