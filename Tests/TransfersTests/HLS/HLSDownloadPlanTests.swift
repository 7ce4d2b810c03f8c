import Foundation
import MediaFormats
import Testing

@testable import Transfers

/// The pure parts of the HLS downloader: which items a playlist needs, their local names, the
/// local playlist, and the retry arithmetic.
@Suite struct HLSDownloadPlanTests {
    let base = URL(string: "https://cdn.example.com/show/v1/index.m3u8?token=abc")!

    @Test func itemsAndLocalNamesFollowThePlaylistOrderAndAreStable() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="800@0"
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1?x=1",IV=0x01
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000@800
            media.mp4
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000
            media.mp4
            #EXT-X-KEY:METHOD=AES-128,URI="data:text/plain;base64,AAAAAAAAAAAAAAAAAAAAAA=="
            #EXTINF:4,
            https://other.example.com/seg?id=3
            #EXT-X-ENDLIST
            """
        let playlist = try HLSPlaylist(parsing: text)
        let plan = try HLSDownloadPlan(playlist: playlist, baseURL: base)
        #expect(
            plan.items.map(\.id) == [
                "init-0.mp4@0+800", "key-0.key", "segment-00000.mp4@800+1000", "segment-00000.mp4@1800+1000",
                "segment-00001.m4s",  // No extension in the URL; the map in effect says fMP4.
            ])
        #expect(plan.items.map(\.segmentIndex) == [0, 0, 0, 1, 2])
        #expect(plan.items[1].url.absoluteString == "https://cdn.example.com/show/keys/k1?x=1")
        #expect(plan.segmentCount == 3)
        // The same playlist gives the same names: what makes a resume safe.
        #expect(try HLSDownloadPlan(playlist: playlist, baseURL: base).items == plan.items)

        let local = try HLSPlaylist(parsing: plan.localPlaylist(playlist, baseURL: base).serialized())
        #expect(local.segments.map(\.uri) == ["segment-00000.mp4", "segment-00000.mp4", "segment-00001.m4s"])
        #expect(local.segments.map(\.byteRange) == playlist.segments.map(\.byteRange))
        #expect(
            local.segments[0].map?.uri == "init-0.mp4"
                && local.segments[0].map?.byteRange == HLSByteRange(length: 800, offset: 0))
        #expect(local.segments[0].key?.uri == "key-0.key" && local.segments[0].key?.iv == "0x01")
        #expect(local.segments[2].key?.uri?.hasPrefix("data:") == true, "an inline key stays inline")
    }

    @Test func drmKeysAreRefusedNamingTheSegment() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXTINF:4,
                a.ts
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key42",KEYFORMAT="com.apple.streamingkeydelivery"
                #EXTINF:4,
                b.ts
                #EXT-X-ENDLIST
                """)
        let error = try #require(throws: TransferError.self) {
            try HLSDownloadPlan(playlist: playlist, baseURL: base)
        }
        #expect(error.kind == .unsupported && error.segmentIndex == 1)
        #expect(error.errorClass == .permanent)
    }

    @Test func backoffDoublesUpToTheCapWithJitterInTheUpperHalf() {
        let settings = HLSDownloadRetrySettings(attempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(settings.attempts == 10)
        for (attempt, full) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1000), (9, 1000)] {
            var random = SystemRandomNumberGenerator()
            let delay = settings.policy.delay(afterFailures: attempt, random: &random)
            let (low, high) = (Double(full) / 2000, Double(full) / 1000)
            #expect(delay >= low - 1e-9 && delay <= high + 1e-9, "attempt \(attempt): \(delay)")
        }
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        #expect(HLSDownloadFetcher.retryAfter("7") == .seconds(7))
        let soon = Date().addingTimeInterval(30)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let fromDate = HLSDownloadFetcher.retryAfter(formatter.string(from: soon))
        #expect(fromDate != nil && fromDate! > .seconds(20) && fromDate! <= .seconds(31))
        #expect(HLSDownloadFetcher.retryAfter("soon") == nil)
        #expect(HLSDownloadFetcher.retryAfter(nil) == nil)
    }

    @Test func statusesAreClassifiedForTheTaskManager() {
        #expect([408, 429, 500, 502, 503, 504].allSatisfy { TransferErrorClass(status: $0) == .transient })
        #expect([400, 404, 410, 416].allSatisfy { TransferErrorClass(status: $0) == .permanent })
        #expect([401, 403].allSatisfy { TransferErrorClass(status: $0) == .needsNewURL })
    }
}
