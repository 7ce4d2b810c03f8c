import Foundation
import MediaFormats
import Testing
import TunerTesting

@testable import Transfers

/// A variant whose sound is a separate audio rendition (`#EXT-X-MEDIA:TYPE=AUDIO` with its own
/// playlist, `HLSFixtures.separateAudio`): both playlists are downloaded with every guarantee the
/// downloader gives, and the local `index.m3u8` is a master playlist that plays offline with
/// video and sound, through the downloader and through the task manager's executor.
@Suite struct HLSSeparateAudioTests {
    static let master = "/static/altaudio/master.m3u8"

    // MARK: Through the downloader

    /// The master, both media playlists, both init sections and every segment of both
    /// renditions are fetched once each; progress counts the audio items; the folder holds a
    /// local master naming `video.m3u8` and `audio.m3u8`; with the origin gone, ffprobe sees one
    /// video and one audio stream in it, and ffmpeg decodes it to exactly what the origin's
    /// master decodes to.
    @Test func theAudioRenditionIsDownloadedAndPlaysOfflineWithTheVideo() async throws {
        guard requireTools("ffmpeg", "ffprobe") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            harness.origin.serveDirectory(fixtures.directory)
            let original = try await decodedMD5(harness.origin.baseURL + Self.master)
            harness.origin.resetCounters()

            let destination = harness.scratch.appendingPathComponent("film")
            let progress = ProgressLog()
            let result = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url(Self.master), destination: destination,
                    retry: HLSDownloaderTests.quickRetry),
                progress: progress.record)

            #expect(result.mediaPlaylistURL.path == "/static/altaudio/video/index.m3u8")
            #expect(result.audioPlaylistURL?.path == "/static/altaudio/audio/index.m3u8")
            #expect(result.audioLanguage == "en")
            #expect(result.segmentCount == 3 && result.audioSegmentCount == 3)
            #expect(result.itemCount == 8, "3 segments and an init section per rendition")
            let first = try #require(progress.all.first)
            #expect(
                first.totalItems == 8 && first.completedItems == 0, "the total includes the audio items from the start")
            let last = try #require(progress.all.last)
            #expect(last.completedItems == 8 && last.totalItems == 8 && last.completedBytes == result.totalBytes)

            for file in fixtures.separateAudio.files {
                #expect(harness.origin.requests(path: "/static/" + file) == 1, "\(file) was not fetched exactly once")
            }
            let names = fileNames(destination)
            for name in [
                "index.m3u8", "video.m3u8", "audio.m3u8", "init-0.mp4", "audio-init-0.mp4",
                "segment-00000.m4s", "audio-segment-00000.m4s", "audio-segment-00002.m4s",
            ] {
                #expect(names.contains(name), "\(name) missing: \(names)")
            }
            #expect(!names.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tmp") }, "\(names)")

            // The local master: strict RFC 8216, one rendition and one variant, both local.
            let local = try HLSPlaylist(parsing: try String(contentsOf: result.localPlaylist, encoding: .utf8))
            #expect(local.isMaster)
            let rendition = try #require(local.renditions.first)
            #expect(local.renditions.count == 1 && rendition.type == .audio)
            #expect(rendition.uri == "audio.m3u8" && rendition.isDefault && rendition.language == "en")
            let variant = try #require(local.variants.first)
            #expect(local.variants.count == 1 && variant.uri == "video.m3u8")
            #expect(variant.audioGroup == rendition.groupID)
            let origin = try HLSPlaylist(
                parsing: try String(contentsOfFile: fixtures.path("altaudio/master.m3u8"), encoding: .utf8))
            let originVariant = try #require(origin.variants.first)
            #expect(
                variant.bandwidth == originVariant.bandwidth && variant.codecs == originVariant.codecs
                    && variant.resolution == originVariant.resolution, "the variant's attributes are kept")

            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("altaudio/video/index.m3u8"),
                originFolder: fixtures.path("altaudio/video"), localPlaylist: "video.m3u8")
            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("altaudio/audio/index.m3u8"),
                originFolder: fixtures.path("altaudio/audio"), localPlaylist: "audio.m3u8")

            try await harness.origin.shutdown()
            #expect(try await streamTypes(result.localPlaylist.path) == ["audio", "video"])
            let offline = try await decodedMD5(result.localPlaylist.path)
            #expect(!offline.isEmpty && offline == original, "offline playback differs from the origin's master")
        }
    }

    /// An audio segment that answers 404 fails the download with an error naming the audio
    /// rendition's segment (never a silent download without sound): no playlist of any kind is
    /// written, and the audio files done so far stay recorded.
    @Test func anAudioSegmentThatFailsFailsTheDownloadNamingIt() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let path = try harness.servedCopy(
                of: fixtures, folder: "altaudio", playlist: "audio/index.m3u8", entry: "master.m3u8",
                edits: ["seg1.m4s": "seg1.m4s?status=404"])
            let destination = harness.scratch.appendingPathComponent("mute")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(path), destination: destination, retry: HLSDownloaderTests.quickRetry,
                        concurrency: 1))
            }
            #expect(error.kind == .httpStatus && error.status == 404)
            #expect(error.errorClass == .permanent)
            #expect(error.rendition == "audio")
            #expect(error.segmentIndex == 1)
            #expect(error.url.flatMap { URL(string: $0)?.path } == "/static/altaudio/audio/seg1.m4s")
            #expect(
                error.description.contains("audio segment 1") && error.description.contains("audio/seg1.m4s"),
                "\(error)")
            #expect(harness.origin.requests(path: "/static/altaudio/audio/seg1.m4s") == 1, "a 404 is not retried")

            let names = fileNames(destination)
            #expect(
                !names.contains("index.m3u8") && !names.contains("video.m3u8") && !names.contains("audio.m3u8"),
                "\(names)")
            let state = try String(
                contentsOf: destination.appendingPathComponent(".hls-download.json"), encoding: .utf8)
            #expect(state.contains("audio-segment-00000.m4s") && !state.contains("audio-segment-00001.m4s"), "\(state)")
        }
    }

    /// A download cancelled while an audio segment hangs resumes from its journal: the saved
    /// master choice and both saved media playlists are reused (no playlist is fetched again),
    /// only the missing audio segment is fetched, and the result plays like the origin.
    @Test func aCancelledDownloadResumesInsideTheAudioRendition() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let path = try harness.servedCopy(
                of: fixtures, folder: "altaudio", playlist: "audio/index.m3u8", entry: "master.m3u8",
                edits: ["seg2.m4s": "seg2.m4s?failfirst=1&delay=30000"])
            let destination = harness.scratch.appendingPathComponent("resume")
            let request = HLSDownloadRequest(
                playlistURL: harness.url(path), destination: destination,
                retry: HLSDownloadRetrySettings(attempts: 3, baseDelay: .milliseconds(10), stallTimeout: .seconds(60)),
                concurrency: 1)

            let progress = ProgressLog()
            let first = Task { try await harness.downloader.download(request, progress: progress.record) }
            defer { first.cancel() }
            // Bounded waits, so a download that never gets this far fails the test instead of hanging it.
            for _ in 0..<3000 where !progress.all.contains(where: { $0.completedItems >= 7 }) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(progress.all.contains { $0.completedItems >= 7 }, "\(progress.all)")
            let hanging = "/static/altaudio/audio/seg2.m4s"
            for _ in 0..<400 where harness.origin.requests(path: hanging) == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(harness.origin.requests(path: hanging) == 1)
            first.cancel()
            await #expect(throws: CancellationError.self) { _ = try await first.value }
            #expect(!fileNames(destination).contains("index.m3u8"))

            let result = try await harness.downloader.download(request)
            #expect(result.resumedItems == 7 && result.itemCount == 8)
            for playlist in ["master.m3u8", "video/index.m3u8", "audio/index.m3u8"] {
                #expect(harness.origin.requests(path: "/static/altaudio/" + playlist) == 1, "\(playlist) fetched again")
            }
            #expect(harness.origin.requests(path: "/static/altaudio/audio/seg0.m4s") == 1)
            #expect(harness.origin.requests(path: "/static/altaudio/video/seg0.m4s") == 1)
            #expect(harness.origin.requests(path: hanging) == 2)
            try await harness.origin.shutdown()
            #expect(
                try await decodedMD5(result.localPlaylist.path)
                    == (try await decodedMD5(fixtures.path("altaudio/master.m3u8"))))
        }
    }

    /// After a 403 on an audio segment (an expired link), the same stream under a new URL finishes
    /// the download without fetching the completed files of either rendition again.
    @Test func aNewURLForTheSameStreamResumesBothRenditions() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        try await DownloadHarness.run { harness in
            let expired = try harness.servedCopy(
                of: fixtures, folder: "altaudio", playlist: "audio/index.m3u8", entry: "master.m3u8",
                edits: ["seg2.m4s": "seg2.m4s?status=403"])
            let destination = harness.scratch.appendingPathComponent("renewed")
            let error = try await #require(throws: TransferError.self) {
                _ = try await harness.downloader.download(
                    HLSDownloadRequest(
                        playlistURL: harness.url(expired), destination: destination,
                        retry: HLSDownloaderTests.quickRetry,
                        concurrency: 1))
            }
            #expect(error.errorClass == .needsNewURL && error.rendition == "audio" && error.segmentIndex == 2)

            let root = harness.scratch.appendingPathComponent("origin").path
            try FileManager.default.copyItem(atPath: fixtures.path("altaudio"), toPath: root + "/renewed")
            let result = try await harness.downloader.download(
                HLSDownloadRequest(
                    playlistURL: harness.url("/static/renewed/master.m3u8"), destination: destination,
                    retry: HLSDownloaderTests.quickRetry))
            #expect(result.resumedItems == 7)
            #expect(result.audioPlaylistURL?.path == "/static/renewed/audio/index.m3u8")
            for file in ["video/init_0.mp4", "video/seg0.m4s", "audio/init_1.mp4", "audio/seg1.m4s"] {
                #expect(harness.origin.requests(path: "/static/renewed/" + file) == 0, "\(file) was fetched again")
            }
            #expect(harness.origin.requests(path: "/static/renewed/audio/seg2.m4s") == 1)
            try expectLocalFilesMatchOrigin(
                directory: destination, originPlaylist: fixtures.path("altaudio/audio/index.m3u8"),
                originFolder: fixtures.path("altaudio/audio"), localPlaylist: "audio.m3u8")
            #expect(
                try await decodedMD5(result.localPlaylist.path)
                    == (try await decodedMD5(fixtures.path("altaudio/master.m3u8"))))
        }
    }

    // MARK: Through the task manager

    /// A `download-hls` task of the master completes through `HLSDownloadExecutor`: the folder is
    /// renamed into place with both renditions, the committed bytes count the audio files too,
    /// the history says so, and it plays offline like the origin's master.
    @Test func theExecutorDownloadsTheAudioRenditionToo() async throws {
        guard requireTools("ffmpeg", "ffprobe") else { return }
        let fixtures = try await HLSFixtures.shared()
        let harness = try await TransfersHarness()
        await harness.manager.register(HLSDownloadExecutor(httpClient: harness.httpClient))
        harness.origin.serveDirectory(fixtures.directory)
        let original = try await decodedMD5(harness.origin.baseURL + Self.master)

        let added = try await harness.manager.add(
            TransferRequest(
                kind: .downloadHLS, sourceURL: harness.origin.baseURL + Self.master, destinationName: "film"))
        let task = try await harness.waitFinished(added.id)
        #expect(task.state == .complete, "\(task.errorReason ?? "")")
        let folder = harness.directory + "/downloads/film"
        #expect(!FileManager.default.fileExists(atPath: folder + ".partial"))
        let names = fileNames(URL(fileURLWithPath: folder))
        let media = names.filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }
        #expect(media.filter { $0.hasPrefix("audio-") }.count == 4 && media.count == 8, "\(names)")
        let mediaBytes = media.reduce(Int64(0)) { total, name in
            total
                + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? NSNumber)?
                    .int64Value ?? 0)
        }
        #expect(task.committedBytes == mediaBytes && task.totalBytes == mediaBytes)
        // A run that finds the folder already moved into place (a crash or stall between the move
        // and the store's update) counts it the same way.
        #expect(HLSDownloadExecutor.folderBytes(folder) == mediaBytes, "\(names)")
        #expect(task.history.contains { $0.message.contains("separate audio (3 segments, en)") }, "\(task.history)")

        await harness.close(keepFiles: true)
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        #expect(try await streamTypes(folder + "/index.m3u8") == ["audio", "video"])
        #expect(try await decodedMD5(folder + "/index.m3u8") == original)
    }

    /// Through the executor, the audio segment's 404 puts the task in error with a reason naming
    /// that segment; no folder is renamed into place.
    @Test func theExecutorFailsTheTaskWhenAnAudioSegmentIsMissing() async throws {
        guard requireTools("ffmpeg") else { return }
        let fixtures = try await HLSFixtures.shared()
        let harness = try await TransfersHarness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        await harness.manager.register(HLSDownloadExecutor(httpClient: harness.httpClient))
        let root = harness.directory + "/origin"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures.path("altaudio"), toPath: root + "/altaudio")
        let audioPlaylist = root + "/altaudio/audio/index.m3u8"
        let text = try String(contentsOfFile: audioPlaylist, encoding: .utf8)
        try text.replacingOccurrences(of: "\nseg1.m4s\n", with: "\nseg1.m4s?status=404\n")
            .write(toFile: audioPlaylist, atomically: true, encoding: .utf8)
        harness.origin.serveDirectory(root)

        let added = try await harness.manager.add(
            TransferRequest(
                kind: .downloadHLS, sourceURL: harness.origin.baseURL + Self.master, destinationName: "film"))
        let task = try await harness.waitFinished(added.id)
        #expect(task.state == .error)
        #expect(task.errorClass == .permanent)
        let reason = task.errorReason ?? ""
        #expect(
            reason.contains("audio segment 1") && reason.contains("/altaudio/audio/seg1.m4s") && reason.contains("404"),
            "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/film"))
        #expect(!FileManager.default.fileExists(atPath: harness.directory + "/downloads/film.partial/index.m3u8"))
        await harness.close()
    }
}

/// The sorted `codec_type`s of the streams ffprobe finds in `input` (each stream once, although
/// ffprobe lists a master playlist's streams under its program too).
func streamTypes(_ input: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
    let result = try await ExternalCommand.run(
        "ffprobe",
        [
            "-v", "error", "-allowed_extensions", "ALL", "-show_entries", "stream=index,codec_type", "-of", "csv=p=0",
            input,
        ],
        timeout: .seconds(60))
    #expect(result.succeeded, "\(result.transcript)", sourceLocation: sourceLocation)
    let streams = Set(
        result.output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty })
    return streams.compactMap { $0.split(separator: ",").last.map(String.init) }.sorted()
}
