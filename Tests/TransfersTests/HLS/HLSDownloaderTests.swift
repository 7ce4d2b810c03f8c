import Foundation
import MediaFormats
import Testing
import Transfers
import TunerTesting

/// The HLS VOD downloader against real ffmpeg-made streams (`HLSFixtures`) on the test origin:
/// every kind downloads and then plays offline in ffmpeg with the origin shut down, faults are
/// retried without a hole, hard failures name their segment and leave no playlist, and a
/// cancelled download resumes without fetching its completed files again.
@Suite struct HLSDownloaderTests {
    /// A fast retry setting for tests: the waits are short, the number of tries is the default.
    static let quickRetry = HLSDownloadRetrySettings(
        attempts: 5, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))

    // MARK: Offline playback

    /// Each kind of VOD (a master playlist, AES-128, fMP4 with EXT-X-MAP, byte ranges, a variant
    /// with a separate audio rendition) downloads into a folder whose `index.m3u8` ffmpeg decodes
    /// to exactly what the original decodes to, with the origin already shut down; every local
    /// file is byte-identical to the origin's.
    @Test(arguments: HLSFixtures.Kind.allCases)
    func downloadedVODPlaysOfflineLikeTheOriginal(kind: HLSFixtures.Kind) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let stream = fixtures.stream(kind)
            let destination = harness.scratch.appendingPathComponent("download-\(kind)")
            let progress = ProgressLog()
            let result = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url(stream.staticPath), destination: destination, retry: Self.quickRetry),
                progress: progress.record)

            // The media playlist that was downloaded: for the master, the higher-bandwidth variant.
            let mediaPlaylist =
                switch kind {
                case .multiVariant: "vod/high/index.m3u8"
                case .separateAudio: "altaudio/video/index.m3u8"
                default: stream.playlist
                }
            #expect(result.mediaPlaylistURL.absoluteString == harness.origin.baseURL + "/static/" + mediaPlaylist)
            #expect(result.segmentCount == HLSFixtures.duration / HLSFixtures.segmentDuration)
            #expect(result.localPlaylist.path == destination.appendingPathComponent("index.m3u8").path)
            #expect((result.audioPlaylistURL != nil) == (kind == .separateAudio))
            let expectedItems =
                switch kind {
                case .encrypted, .fragmentedMP4: result.segmentCount + 1
                // Both renditions' segments and init sections.
                case .separateAudio: result.segmentCount + 1 + result.audioSegmentCount + 1
                default: result.segmentCount
                }
            #expect(result.itemCount == expectedItems)
            #expect(result.resumedItems == 0)
            let last = try #require(progress.all.last)
            #expect(last.completedItems == expectedItems && last.totalItems == expectedItems)
            #expect(last.completedBytes == result.totalBytes && result.totalBytes > 0)
            if kind == .multiVariant {
                #expect(harness.origin.requests(path: "/static/vod/low/seg0.ts") == 0, "the other variant was fetched")
            }
            let names = fileNames(destination)
            #expect(!names.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tmp") }, "\(names)")
            if kind == .encrypted {
                #expect(names.contains("key-0.key"), "the key is saved next to the segments: \(names)")
            }

            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path(mediaPlaylist),
                originFolder: fixtures.path((mediaPlaylist as NSString).deletingLastPathComponent),
                localPlaylist: kind == .separateAudio ? HLSDownloader.localVideoPlaylistName : "index.m3u8")
            if kind == .separateAudio {
                try expectLocalFilesMatchOrigin(
                    directory: destination, originPlaylist: fixtures.path("altaudio/audio/index.m3u8"),
                    originFolder: fixtures.path("altaudio/audio"), localPlaylist: HLSDownloader.localAudioPlaylistName)
            }

            // Nothing can come from the network any more.
            try await harness.origin.shutdown()
            let offline = try await decodedMD5(result.localPlaylist.path)
            // A separate audio rendition is only heard through the master that names it.
            let original = try await decodedMD5(fixtures.path(kind == .separateAudio ? stream.playlist : mediaPlaylist))
            #expect(!offline.isEmpty && offline == original, "\(kind): offline playback differs from the original")
        }
    }

    // MARK: Rendition choice

    /// A bandwidth limit picks the highest variant under it; a limit below every variant fails
    /// with a clear error instead of taking more than asked.
    @Test func masterPlaylistVariantIsChosenByBandwidth() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let master = try HLSPlaylist(
                parsing: try String(contentsOfFile: fixtures.path("vod/master.m3u8"), encoding: .utf8))
            let bandwidths = master.variants.compactMap(\.bandwidth).sorted()
            try #require(bandwidths.count == 2)

            let limited = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url(fixtures.multiVariant.staticPath),
                    destination: harness.scratch.appendingPathComponent("low"),
                    rendition: .highestBandwidth(atMost: bandwidths[1] - 1), retry: Self.quickRetry))
            #expect(limited.variantBandwidth == bandwidths[0])
            #expect(limited.mediaPlaylistURL.path == "/static/vod/low/index.m3u8")
            #expect(harness.origin.requests(path: "/static/vod/high/index.m3u8") == 0)
            #expect(harness.origin.requests(path: "/static/vod/low/seg2.ts") == 1)

            let destination = harness.scratch.appendingPathComponent("none")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(fixtures.multiVariant.staticPath), destination: destination,
                        rendition: .highestBandwidth(atMost: bandwidths[0] - 1)))
            }
            #expect(error.kind == .noMatchingVariant)
            #expect(error.description.contains(String(bandwidths[0])), "\(error)")
            #expect(!fileNames(destination).contains("index.m3u8"))
        }
    }

    // MARK: Faults

    /// Transient faults on every file (429 with Retry-After, 503 twice, a reset mid-body, a stall
    /// on the key) are retried; the download completes byte-identical to the origin and plays.
    @Test func transientFaultsAreRetriedUntilEveryFileIsComplete() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let path = try harness.servedCopy(
                of: fixtures, folder: "aes",
                edits: [
                    "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\",IV=\(HLSFixtures.iv)":
                        "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin?failfirst=1&delay=20000\",IV=\(HLSFixtures.iv)",
                    "seg0.ts": "seg0.ts?failfirst=1&status=429&retryafter=1",
                    "seg1.ts": "seg1.ts?failfirst=2&status=503",
                    "seg2.ts": "seg2.ts?failfirst=1&reset=1000&rst=1",
                ])
            let destination = harness.scratch.appendingPathComponent("faults")
            let result = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url(path), destination: destination,
                    // Room for a loaded machine: a good try slower than the stall timeout is
                    // retried too (the key's first try, 20 s late, must still count as stalled).
                    retry: HLSDownloadRetrySettings(
                        attempts: 8, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50),
                        stallTimeout: .seconds(5))))
            #expect(result.itemCount == 4)
            // At least the faulty tries plus one good one. More is possible on a loaded machine,
            // where a slow good try can look stalled; the bytes below show nothing was mixed.
            #expect(harness.origin.requests(path: "/static/aes/key.bin") >= 2)
            #expect(harness.origin.requests(path: "/static/aes/seg0.ts") >= 2)
            #expect(harness.origin.requests(path: "/static/aes/seg1.ts") >= 3)
            #expect(harness.origin.requests(path: "/static/aes/seg2.ts") >= 2)
            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("aes/index.m3u8"),
                originFolder: fixtures.path("aes"))
            try await harness.origin.shutdown()
            #expect(
                try await decodedMD5(result.localPlaylist.path)
                    == (try await decodedMD5(fixtures.path("aes/index.m3u8"))))
        }
    }

    /// A segment that keeps failing ends the download with an error naming it, classified for the
    /// task manager (404 permanent and not retried, 403 needs a new URL, 503 transient after every
    /// try), and no `index.m3u8` is written; the other segments stay recorded for a later resume.
    @Test(arguments: [(404, TransferErrorClass.permanent), (403, .needsNewURL), (503, .transient)])
    func aSegmentThatKeepsFailingFailsTheDownloadWithoutAPlaylist(
        status: Int, classification: TransferErrorClass
    ) async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let path = try harness.servedCopy(
                of: fixtures, folder: "vod/low", edits: ["seg1.ts": "seg1.ts?status=\(status)"])
            let destination = harness.scratch.appendingPathComponent("failing")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(path), destination: destination, retry: Self.quickRetry, concurrency: 1
                    ))
            }
            #expect(error.kind == .httpStatus)
            #expect(error.status == status)
            #expect(error.segmentIndex == 1)
            #expect(error.url.flatMap { URL(string: $0)?.path } == "/static/vod/low/seg1.ts")
            #expect(error.errorClass == classification)
            #expect(error.description.contains("segment 1") && error.description.contains("seg1.ts"), "\(error)")
            let tries = classification == .transient ? Self.quickRetry.attempts : 1
            #expect(error.attempts == tries)
            #expect(harness.origin.requests(path: "/static/vod/low/seg1.ts") == tries)
            let names = fileNames(destination)
            #expect(!names.contains("index.m3u8"), "a playlist with a hole was written: \(names)")
            #expect(names.contains("segment-00000.ts") && !names.contains("segment-00001.ts"), "\(names)")
        }
    }

    /// A segment whose body is always shorter than its `Content-Length` (the connection closes
    /// early) is never recorded or renamed into place: the download fails as transient after
    /// every try, naming the segment.
    @Test func aBodyShorterThanItsContentLengthIsNeverAccepted() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let path = try harness.servedCopy(
                of: fixtures, folder: "vod/low", edits: ["seg1.ts": "seg1.ts?badlength=1000"])
            let destination = harness.scratch.appendingPathComponent("short")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(path), destination: destination, retry: Self.quickRetry, concurrency: 1
                    ))
            }
            #expect(error.kind == .lengthMismatch || error.kind == .transport, "\(error)")
            #expect(error.errorClass == .transient)
            #expect(error.segmentIndex == 1)
            #expect(harness.origin.requests(path: "/static/vod/low/seg1.ts") == Self.quickRetry.attempts)
            let names = fileNames(destination)
            #expect(!names.contains("segment-00001.ts") && !names.contains("index.m3u8"), "\(names)")
            let state = try String(
                contentsOf: destination.appendingPathComponent(".hls-download.json"), encoding: .utf8)
            #expect(state.contains("segment-00000.ts") && !state.contains("segment-00001.ts"), "\(state)")
        }
    }

    /// A live playlist is refused before anything is fetched beyond it.
    @Test func livePlaylistsAreRefused() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            try harness.origin.serveLive(fixtures, name: "news")
            let destination = harness.scratch.appendingPathComponent("live")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(harness.origin.livePlaylistPath(name: "news")),
                        destination: destination))
            }
            #expect(error.kind == .liveStream)
            #expect(error.errorClass == .permanent)
            #expect(harness.origin.requestCount == 1)
            #expect(!fileNames(destination).contains("index.m3u8"))
        }
    }

    // MARK: Resume

    /// A download cancelled while a segment hangs stops (it does not wait for the segment), keeps
    /// what it completed, and the next call fetches only what is missing: completed segments are
    /// not requested again, except one whose file was cut on disk meanwhile. The result plays.
    @Test func cancelledDownloadResumesWithoutFetchingCompletedSegmentsAgain() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            // seg2 hangs for 30 s on its first request only; the stall timeout is longer, so only
            // the cancellation can end the first call before seg2 arrives.
            let path = try harness.servedCopy(
                of: fixtures, folder: "vod/low", edits: ["seg2.ts": "seg2.ts?failfirst=1&delay=30000"])
            let destination = harness.scratch.appendingPathComponent("resume")
            let request = HLSDownloadRequest(
                playlistURL: harness.url(path), destination: destination,
                retry: HLSDownloadRetrySettings(attempts: 3, baseDelay: .milliseconds(10), stallTimeout: .seconds(60)),
                concurrency: 1)

            let progress = ProgressLog()
            let first = Task { try await harness.downloader.download(request, progress: progress.record) }
            await progress.waitFor(completedItems: 2)
            // Cancel while seg2's request hangs at the origin (bounded wait, not a timing check).
            for _ in 0..<400 where harness.origin.requests(path: "/static/vod/low/seg2.ts") == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(harness.origin.requests(path: "/static/vod/low/seg2.ts") == 1)
            first.cancel()
            await #expect(throws: CancellationError.self) { _ = try await first.value }
            var names = fileNames(destination)
            #expect(!names.contains("index.m3u8"), "\(names)")
            #expect(names.contains("segment-00000.ts") && names.contains("segment-00001.ts"), "\(names)")
            #expect(!names.contains("segment-00002.ts"), "\(names)")

            // Cut the first segment's file: the record no longer matches the disk, so it is fetched again.
            let cut = try FileHandle(forWritingTo: destination.appendingPathComponent("segment-00000.ts"))
            try cut.truncate(atOffset: 100)
            try cut.close()

            let resumedProgress = ProgressLog()
            let result = try await harness.downloader.download(request, progress: resumedProgress.record)
            #expect(result.resumedItems == 1)
            #expect(resumedProgress.all.first?.completedItems == 1)
            #expect(resumedProgress.all.first?.resumedItems == 1)
            #expect(harness.origin.requests(path: "/static/vod/low/index.m3u8") == 1, "the saved playlist is reused")
            #expect(harness.origin.requests(path: "/static/vod/low/seg0.ts") == 2)
            #expect(harness.origin.requests(path: "/static/vod/low/seg1.ts") == 1)
            #expect(harness.origin.requests(path: "/static/vod/low/seg2.ts") == 2)
            names = fileNames(destination)
            #expect(names.contains("index.m3u8"), "\(names)")

            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("vod/low/index.m3u8"),
                originFolder: fixtures.path("vod/low"))
            try await harness.origin.shutdown()
            #expect(
                try await decodedMD5(result.localPlaylist.path)
                    == (try await decodedMD5(fixtures.path("vod/low/index.m3u8"))))

            // A third call on a finished folder fetches nothing and gives the same result.
            let again = try await harness.downloader.download(request)
            #expect(again.resumedItems == again.itemCount && again.totalBytes == result.totalBytes)
        }
    }

    /// After a 403 (an expired link), calling again with a new URL of the same stream finishes
    /// the download from the new URL without fetching the completed segments again.
    @Test func aNewURLForTheSameStreamResumesTheDownload() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let expired = try harness.servedCopy(
                of: fixtures, folder: "vod/low", edits: ["seg1.ts": "seg1.ts?status=403"])
            let destination = harness.scratch.appendingPathComponent("renewed")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(expired), destination: destination, retry: Self.quickRetry,
                        concurrency: 1))
            }
            #expect(error.errorClass == .needsNewURL && error.segmentIndex == 1)

            // The same stream under another path (what a refreshed link looks like).
            let root = harness.scratch.appendingPathComponent("origin").path
            try FileManager.default.copyItem(atPath: fixtures.path("vod/low"), toPath: root + "/renewed")
            let result = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url("/static/renewed/index.m3u8"), destination: destination,
                    retry: Self.quickRetry))
            #expect(result.resumedItems == 1)
            #expect(result.mediaPlaylistURL.path == "/static/renewed/index.m3u8")
            #expect(
                harness.origin.requests(path: "/static/renewed/seg0.ts") == 0, "a completed segment was fetched again")
            #expect(harness.origin.requests(path: "/static/renewed/seg1.ts") == 1)
            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("vod/low/index.m3u8"),
                originFolder: fixtures.path("vod/low"))
        }
    }

    /// A folder holding another download is not mixed with a new one.
    @Test func aDestinationHoldingAnotherDownloadIsRefused() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let destination = harness.scratch.appendingPathComponent("shared")
            _ = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url("/static/vod/low/index.m3u8"), destination: destination))
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(fixtures.encrypted.staticPath), destination: destination))
            }
            #expect(error.kind == .destinationInUse)
            #expect(fileNames(destination).contains("index.m3u8"), "the first download is left alone")
        }
    }
}
