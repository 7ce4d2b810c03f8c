import AsyncHTTPClient
import Foundation
import Logging
import MediaFormats

/// Downloads an HLS VOD (one rendition: its segments, keys and init sections) into a folder with
/// a local `index.m3u8` that plays offline, and resumes where it stopped.
///
/// What it guarantees:
/// - Nothing is skipped. Every file is retried on transient errors (timeouts, resets, stalls,
///   408/429/5xx with `Retry-After`) up to `HLSDownloadRetrySettings.attempts`; after that the
///   download throws `HLSDownloadError` naming the URL and segment. `index.m3u8` is written only
///   when every item is on disk, so a folder with an `index.m3u8` is complete.
/// - No confirmed byte is lost. An item is recorded in `.hls-download.json` only after its file
///   is fully written, its length checked (`Content-Length`, or the byte range) and synced; the
///   record itself is replaced atomically. Calling `download` again on the same destination
///   (after a crash, a kill or a cancellation) re-checks the sizes of recorded files, skips them,
///   and fetches the rest.
/// - Same rendition on resume. The media playlist chosen the first time is saved in the folder
///   (`.hls-download.m3u8`) and reused, so a resumed download never mixes renditions or segment
///   lists, and needs no network for the playlist. Resuming with a different playlist URL (a
///   link that expired, after a 401/403) fetches the new playlist and keeps the files already done
///   only when it has exactly the same segment list (same local names, byte ranges and
///   durations); otherwise the folder is refused (`destinationInUse`) rather than mixed.
/// - Keys are saved in the folder (`key-N.key`), next to the segments, because offline playback
///   needs them: whoever can read the folder can decrypt the video.
///
/// What it refuses, with an error: live playlists (no `#EXT-X-ENDLIST`), DRM keys (non-http(s)
/// key URIs), and variants whose audio is a separate rendition group with its own playlist (not
/// downloaded yet). Subtitle and closed-caption renditions are not downloaded. Task cancellation
/// stops the fetches promptly and rethrows `CancellationError`; completed items stay recorded.
///
/// Memory stays bounded: each fetch streams its body to its file chunk by chunk, and at most
/// `HLSDownloadRequest.concurrency` fetches run at once.
public struct HLSDownloader: Sendable {
    /// The name of the local playlist in the destination folder.
    public static let localPlaylistName = "index.m3u8"

    private let client: HTTPClient
    private let logger: Logger

    /// `client` is used for every request; redirects are followed by the client's own
    /// configuration (AsyncHTTPClient's default follows them).
    public init(client: HTTPClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Downloads `request.playlistURL` into `request.destination`, or continues an earlier call
    /// that used the same destination. `progress` is called once the plan is known and after
    /// each item is recorded, from any thread.
    public func download(
        _ request: HLSDownloadRequest, progress: @escaping @Sendable (HLSDownloadProgress) -> Void = { _ in }
    ) async throws -> HLSDownloadResult {
        let directory = request.destination.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw HLSDownloadError(.fileSystem, underlying: error, "cannot create the destination folder \(directory)")
        }
        let fetcher = HLSDownloadFetcher(client: client, logger: logger, headers: request.headers, retry: request.retry)
        let playlistPath = directory + "/" + HLSDownloadJournal.playlistFileName
        let localPlaylistPath = directory + "/" + Self.localPlaylistName

        // The media playlist: the saved one when resuming, otherwise fetched (and saved).
        var state: HLSDownloadState
        let playlist: HLSPlaylist
        if let saved = try HLSDownloadJournal.load(directory: directory),
           let text = FileManager.default.contents(atPath: playlistPath) {
            let savedPlaylist = try Self.parse(Array(text), url: URL(string: saved.mediaPlaylistURL) ?? request.playlistURL)
            if saved.sourceURL == request.playlistURL.absoluteString {
                state = saved
                playlist = savedPlaylist
            } else {
                // A new URL for the same download (an expired link): fetch it, and keep the files
                // already done only when it serves the very same segment list.
                let chosen = try await choosePlaylist(request, fetcher: fetcher)
                try Self.checkSameStream(
                    saved: savedPlaylist, savedURL: URL(string: saved.mediaPlaylistURL) ?? request.playlistURL,
                    new: chosen.playlist, newURL: chosen.url, savedSource: saved.sourceURL, directory: directory,
                    sameVariant: saved.variantBandwidth == chosen.bandwidth)
                playlist = chosen.playlist
                try HLSDownloadFiles.writeAtomically(chosen.bytes, to: playlistPath)
                state = HLSDownloadState(
                    sourceURL: request.playlistURL.absoluteString, mediaPlaylistURL: chosen.url.absoluteString,
                    variantBandwidth: chosen.bandwidth, completed: saved.completed)
                try HLSDownloadJournal.save(state, directory: directory)
            }
            logger.info("HLS download resuming", metadata: [
                "directory": "\(directory)", "completed": "\(saved.completed.count)",
            ])
        } else {
            // A new download: a final playlist left by something else must not pass for ours.
            HLSDownloadFiles.remove(localPlaylistPath)
            let chosen = try await choosePlaylist(request, fetcher: fetcher)
            playlist = chosen.playlist
            try HLSDownloadFiles.writeAtomically(chosen.bytes, to: playlistPath)
            state = HLSDownloadState(
                sourceURL: request.playlistURL.absoluteString, mediaPlaylistURL: chosen.url.absoluteString,
                variantBandwidth: chosen.bandwidth, completed: [:])
            try HLSDownloadJournal.save(state, directory: directory)
        }
        let mediaURL = URL(string: state.mediaPlaylistURL) ?? request.playlistURL
        let plan = try HLSDownloadPlan(playlist: playlist, baseURL: mediaURL)

        // Trust a record only while its file is still there and long enough.
        var verified: [String: Int64] = [:]
        for item in plan.items {
            guard let bytes = state.completed[item.id],
                  let size = HLSDownloadFiles.size(of: directory + "/" + item.localName) else { continue }
            let needed = item.range.map { Int64($0.offset + $0.length) } ?? bytes
            if item.range == nil ? size == bytes : size >= needed { verified[item.id] = bytes }
        }
        if verified.count != state.completed.count {
            logger.info("HLS download found recorded files missing or cut; fetching them again", metadata: [
                "directory": "\(directory)", "recorded": "\(state.completed.count)", "verified": "\(verified.count)",
            ])
            state.completed = verified
            try HLSDownloadJournal.save(state, directory: directory)
        }

        let journal = HLSDownloadJournal(state: state, directory: directory, totalItems: plan.items.count, progress: progress)
        await journal.reportProgress()
        let pending = plan.items.filter { verified[$0.id] == nil }
        try await fetchAll(pending, fetcher: fetcher, directory: directory, journal: journal,
                           concurrency: max(1, request.concurrency))

        // Every item is recorded: only now does the folder get its playlist.
        let completed = await journal.completed
        if let missing = plan.items.first(where: { completed[$0.id] == nil }) {
            // Cannot happen unless the journal lost a record; never write a playlist with a hole.
            throw HLSDownloadError(.fileSystem, url: missing.url, "\(missing.localName) is not recorded after every fetch succeeded")
        }
        do {
            let local = plan.localPlaylist(playlist, baseURL: mediaURL)
            try HLSDownloadFiles.writeAtomically(local.serializedBytes(), to: localPlaylistPath)
            let totalBytes = plan.items.reduce(Int64(0)) { $0 + (completed[$1.id] ?? 0) }
            logger.info("HLS download complete", metadata: [
                "directory": "\(directory)", "items": "\(plan.items.count)", "bytes": "\(totalBytes)",
            ])
            return HLSDownloadResult(
                directory: URL(fileURLWithPath: directory, isDirectory: true),
                localPlaylist: URL(fileURLWithPath: localPlaylistPath),
                mediaPlaylistURL: mediaURL, variantBandwidth: state.variantBandwidth,
                segmentCount: plan.segmentCount, itemCount: plan.items.count, totalBytes: totalBytes,
                resumedItems: verified.count)
        }
    }

    // MARK: Steps

    /// Fetches `items`, `concurrency` at a time. The first failure cancels the others, waits for
    /// them (an item that finishes meanwhile is still recorded) and is thrown.
    private func fetchAll(
        _ items: [HLSDownloadItem], fetcher: HLSDownloadFetcher, directory: String, journal: HLSDownloadJournal,
        concurrency: Int
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = items.makeIterator()
            func start(_ item: HLSDownloadItem) {
                group.addTask {
                    let bytes = try await fetcher.fetch(item, into: directory)
                    try await journal.markCompleted(item, bytes: bytes)
                }
            }
            for _ in 0..<concurrency {
                guard let item = next.next() else { break }
                start(item)
            }
            var firstError: (any Error)?
            while let result = await group.nextResult() {
                switch result {
                case .success:
                    if firstError == nil, !Task.isCancelled, let item = next.next() { start(item) }
                case .failure(let error):
                    // Prefer the real failure over the cancellations it caused.
                    if firstError == nil || (firstError is CancellationError && !(error is CancellationError)) {
                        if firstError == nil { group.cancelAll() }
                        firstError = error
                    }
                }
            }
            if Task.isCancelled, !(firstError is HLSDownloadError) { throw CancellationError() }
            if let firstError { throw firstError }
        }
    }

    /// The media playlist to download: the request's URL when it is one, else the chosen variant.
    private func choosePlaylist(
        _ request: HLSDownloadRequest, fetcher: HLSDownloadFetcher
    ) async throws -> (playlist: HLSPlaylist, bytes: [UInt8], url: URL, bandwidth: Int?) {
        let top = try await fetcher.fetchPlaylist(request.playlistURL)
        let parsed = try Self.parse(top.bytes, url: top.finalURL)
        guard parsed.isMaster else {
            try Self.checkVOD(parsed, url: top.finalURL)
            return (parsed, top.bytes, top.finalURL, nil)
        }

        let variant = try Self.chooseVariant(parsed, rendition: request.rendition, url: top.finalURL)
        if let group = variant.audioGroup,
           parsed.renditions.contains(where: { $0.type == .audio && $0.groupID == group && $0.uri != nil }) {
            throw HLSDownloadError(
                .unsupported, url: top.finalURL,
                "the chosen variant (BANDWIDTH \(variant.bandwidth ?? 0)) plays its audio from the separate rendition group \"\(group)\"; downloading separate audio renditions is not supported yet")
        }
        guard let variantURL = HLSRewriter(baseURL: top.finalURL).resolve(variant.uri) else {
            throw HLSDownloadError(.invalidPlaylist, url: top.finalURL, "cannot read the variant URI \"\(variant.uri)\" as a URL")
        }
        logger.info("HLS download chose a variant", metadata: [
            "bandwidth": "\(variant.bandwidth ?? 0)", "url": "\(variantURL.absoluteString)",
        ])
        let media = try await fetcher.fetchPlaylist(variantURL)
        let mediaPlaylist = try Self.parse(media.bytes, url: media.finalURL)
        guard !mediaPlaylist.isMaster else {
            throw HLSDownloadError(.invalidPlaylist, url: media.finalURL, "the variant is another master playlist")
        }
        try Self.checkVOD(mediaPlaylist, url: media.finalURL)
        return (mediaPlaylist, media.bytes, media.finalURL, variant.bandwidth)
    }

    /// Throws `destinationInUse` unless `new` looks like the same stream as `saved`: the same
    /// variant bandwidth, items (local names, ranges, roles), segment file names (the last path
    /// component, which a refreshed link keeps while its host or token changes) and durations.
    /// Two renditions of one stream whose segments share file names in different folders would
    /// pass when given as media playlist URLs: the caller must only pass a renewed link.
    static func checkSameStream(
        saved: HLSPlaylist, savedURL: URL, new: HLSPlaylist, newURL: URL, savedSource: String, directory: String,
        sameVariant: Bool
    ) throws(HLSDownloadError) {
        let before = try HLSDownloadPlan(playlist: saved, baseURL: savedURL)
        let after = try HLSDownloadPlan(playlist: new, baseURL: newURL)
        let same = sameVariant
            && before.items.map(\.id) == after.items.map(\.id)
            && before.items.map(\.url.lastPathComponent) == after.items.map(\.url.lastPathComponent)
            && before.items.map(\.role) == after.items.map(\.role)
            && saved.segments.map(\.duration) == new.segments.map(\.duration)
        guard same else {
            throw HLSDownloadError(
                .destinationInUse, url: newURL,
                "\(directory) holds the download of \(savedSource), and the new URL serves a different segment list; choose another folder, or delete this one to start over")
        }
    }

    static func chooseVariant(_ master: HLSPlaylist, rendition: HLSDownloadRendition, url: URL) throws(HLSDownloadError) -> HLSVariant {
        let candidates = master.variants.filter { !$0.isIFrameOnly }
        let limit: Int? = switch rendition.choice {
        case .highest: nil
        case .highestAtMost(let limit): limit
        }
        let fitting = candidates.filter { limit == nil || ($0.bandwidth ?? 0) <= limit! }
        guard let best = fitting.max(by: { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }) else {
            let offered = candidates.compactMap(\.bandwidth).sorted().map(String.init).joined(separator: ", ")
            throw HLSDownloadError(
                .noMatchingVariant, url: url,
                candidates.isEmpty ? "the master playlist has no variant"
                    : "no variant has a BANDWIDTH within \(rendition); offered: \(offered)")
        }
        return best
    }

    static func parse(_ bytes: [UInt8], url: URL) throws(HLSDownloadError) -> HLSPlaylist {
        // Lenient: real playlists break small rules players forgive; what matters here (URIs,
        // ranges, keys, maps) is still read.
        let playlist: HLSPlaylist
        do {
            playlist = try HLSPlaylist(parsing: bytes, configuration: HLSParser.Configuration(throwsOnViolation: false, playlistURL: url))
        } catch {
            throw HLSDownloadError(.invalidPlaylist, url: url, underlying: error, "the playlist cannot be parsed: \(error)")
        }
        guard bytes.starts(with: Array("#EXTM3U".utf8)) || String(decoding: bytes.prefix(16), as: UTF8.self).contains("#EXTM3U") else {
            throw HLSDownloadError(.invalidPlaylist, url: url, "the response is not an HLS playlist (no #EXTM3U)")
        }
        return playlist
    }

    static func checkVOD(_ playlist: HLSPlaylist, url: URL) throws(HLSDownloadError) {
        guard playlist.isEndList else {
            throw HLSDownloadError(
                .liveStream, url: url,
                "the playlist has no #EXT-X-ENDLIST: it is live (or an unfinished event) and only VODs can be downloaded")
        }
        guard !playlist.segments.isEmpty else {
            throw HLSDownloadError(.invalidPlaylist, url: url, "the playlist has no segments")
        }
    }
}
