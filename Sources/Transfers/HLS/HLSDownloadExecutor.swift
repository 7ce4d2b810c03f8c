import AsyncHTTPClient
import Foundation
import Logging

/// Runs `download-hls` tasks: ``HLSDownloader`` fills `<data>/downloads/<name>.partial/`, and
/// the folder is renamed to `<data>/downloads/<name>/` only once its `index.m3u8` is written
/// (every segment, key and init map present, each synced, the separate audio rendition's too).
/// The downloader's own journal is what a resume continues from, so a crash or a pause loses no
/// finished segment.
///
/// Task properties: `maxBandwidth` (bits per second) picks the highest variant not above it;
/// `audioLanguage` (a language tag) picks the audio rendition when the variant has several.
/// Progress counts the bytes of every synced file, audio included.
public struct HLSDownloadExecutor: TransferExecutor {
    public let httpClient: HTTPClient
    /// Tries per file inside one run; the manager retries the run itself after that.
    public var retry: HLSDownloadRetrySettings

    public init(httpClient: HTTPClient, retry: HLSDownloadRetrySettings = HLSDownloadRetrySettings(attempts: 3)) {
        self.httpClient = httpClient
        self.retry = retry
    }

    public var kinds: [TransferKind] { [.downloadHLS] }

    public func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
        let partial = context.downloadsDirectory + "/" + task.destinationName + ".partial"
        let final = context.downloadsDirectory + "/" + task.destinationName
        let fileManager = FileManager.default
        // A crash between the rename and the store's update: the folder is done already.
        if !fileManager.fileExists(atPath: partial),
            fileManager.fileExists(atPath: final + "/" + HLSDownloader.localPlaylistName)
        {
            let bytes = Self.folderBytes(final)
            try await context.commit(
                TransferCheckpoint(committedBytes: bytes, totalBytes: bytes, etag: nil, lastModified: nil))
            return TransferOutcome(resultName: task.destinationName, bytes: bytes)
        }
        guard let url = URL(string: task.sourceURL) else {
            throw TransferError.permanent("'\(task.sourceURL)' is not a URL")
        }
        var rendition = HLSDownloadRendition.highestBandwidth
        if let limit = task.properties["maxBandwidth"].flatMap(Int.init) {
            rendition = .highestBandwidth(atMost: limit)
        }
        let request = HLSDownloadRequest(
            playlistURL: url, destination: URL(fileURLWithPath: partial),
            headers: Dictionary(task.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }),
            rendition: rendition, audioLanguage: task.properties["audioLanguage"], retry: retry)
        let downloader = HLSDownloader(client: httpClient, fetchGate: context.fetchGate, logger: context.logger)
        let result = try await downloader.download(
            request,
            progress: { progress in
                // Items are counted only once synced and journalled, so these bytes are safe.
                context.progress(bytes: progress.completedBytes, total: nil)
            }, activity: { context.activity() })
        try Task.checkCancellation()
        // Still this worker's task? One that stalled past its claim must not finish another's run.
        try await context.confirmClaim()
        guard !fileManager.fileExists(atPath: final) else {
            throw TransferError.permanent("\(final) appeared while the stream downloaded; move it away, then retry")
        }
        do {
            try fileManager.moveItem(atPath: partial, toPath: final)
        } catch {
            throw TransferError.classify(error)
        }
        PartialFile.syncDirectory(context.downloadsDirectory)
        try await context.commit(
            TransferCheckpoint(
                committedBytes: result.totalBytes, totalBytes: result.totalBytes, etag: nil, lastModified: nil),
            note:
                """
                \(result.segmentCount) segments, \(result.itemCount) \
                files\(result.variantBandwidth.map { ", variant of \($0) bit/s" } ?? "")
                """
                    + (result.audioPlaylistURL == nil
                        ? ""
                        : """
                        , separate audio (\(result.audioSegmentCount) \
                        segments\(result.audioLanguage.map { ", \($0)" } ?? ""))
                        """)
        )
        return TransferOutcome(resultName: task.destinationName, bytes: result.totalBytes)
    }

    public func discard(_ task: TransferTask, context: TransferContext) async throws {
        let partial = context.downloadsDirectory + "/" + task.destinationName + ".partial"
        if FileManager.default.fileExists(atPath: partial) { try FileManager.default.removeItem(atPath: partial) }
    }

    public func deleteResult(_ task: TransferTask, context: TransferContext) async throws {
        let final = context.downloadsDirectory + "/" + (task.destinationName)
        if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
    }

    /// The bytes of a finished folder's media files: what `HLSDownloadResult.totalBytes` counts
    /// for the run that made it. The playlists Tuner wrote and its journal (dot files) are left
    /// out, so a task finished by a second run (after a crash or stall between the move and the
    /// store's update) reports the same size as one finished in a single run.
    static func folderBytes(_ path: String) -> Int64 {
        let playlists: Set<String> = [
            HLSDownloader.localPlaylistName, HLSDownloader.localVideoPlaylistName,
            HLSDownloader.localAudioPlaylistName,
        ]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.filter { !$0.hasPrefix(".") && !playlists.contains($0) }
            .reduce(Int64(0)) { $0 + (HLSDownloadFiles.size(of: path + "/" + $1) ?? 0) }
    }
}
