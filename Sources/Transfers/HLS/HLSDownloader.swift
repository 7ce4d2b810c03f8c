import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats

/// Downloads an HLS VOD (one variant: its segments, keys and init sections, and the separate
/// audio rendition it plays its sound from, if any) into a folder with a local `index.m3u8` that
/// plays offline, and resumes where it stopped.
///
/// What it guarantees:
/// - Nothing is skipped. Every file is retried on transient errors (timeouts, resets, stalls,
///   408/429/5xx with `Retry-After`) up to `HLSDownloadRetrySettings.attempts`; after that the
///   download throws `TransferError` naming the URL and segment. `index.m3u8` is written only
///   when every item is on disk, so a folder with an `index.m3u8` is complete.
/// - No confirmed byte is lost. An item is recorded in `.hls-download.json` only after its file
///   is fully written, its length checked (`Content-Length`, or the byte range) and synced; the
///   record itself is replaced atomically. Calling `download` again on the same destination
///   (after a crash, a kill or a cancellation) re-checks the sizes of recorded files, skips them,
///   and fetches the rest.
/// - Same rendition on resume. The media playlists chosen the first time are saved in the folder
///   (`.hls-download.m3u8`, and `.hls-download-audio.m3u8` for the audio rendition) and reused,
///   so a resumed download never mixes renditions or segment lists, and needs no network for the
///   playlists. Resuming with a different playlist URL (a link that expired, after a 401/403)
///   fetches the new playlists and keeps the files already done only when they have exactly the
///   same segment lists (same local names, byte ranges and durations); otherwise the folder is
///   refused (`destinationInUse`) rather than mixed.
/// - Sound included. When the chosen variant names an `AUDIO` group whose chosen rendition
///   (`HLSDownloadRequest.audioLanguage`, else `DEFAULT=YES`, else `AUTOSELECT=YES`, else the
///   first) has its own playlist, that playlist is downloaded with the same guarantees, its files
///   named `audio-…`; the folder then gets `video.m3u8`, `audio.m3u8` and an `index.m3u8` master
///   playlist tying them together (still written last). Otherwise `index.m3u8` is the local
///   media playlist, as it always was.
/// - Keys are saved in the folder (`key-N.key`), next to the segments, because offline playback
///   needs them: whoever can read the folder can decrypt the video.
///
/// What it refuses, with an error: live playlists (no `#EXT-X-ENDLIST`) and DRM keys (non-http(s)
/// key URIs). Subtitle, alternative video and closed-caption renditions are not downloaded. Task
/// cancellation stops the fetches promptly and rethrows `CancellationError`; completed items stay
/// recorded.
///
/// Memory stays bounded: each fetch streams its body to its file chunk by chunk, and at most
/// `HLSDownloadRequest.concurrency` fetches run at once.
public struct HLSDownloader: Sendable {
    /// The name of the local playlist in the destination folder.
    public static let localPlaylistName = "index.m3u8"
    /// With a separate audio rendition: the local media playlist of the variant, which the local
    /// master playlist (`index.m3u8`) names.
    public static let localVideoPlaylistName = "video.m3u8"
    /// With a separate audio rendition: its local media playlist.
    public static let localAudioPlaylistName = "audio.m3u8"

    private let client: HTTPClient
    private let logger: Logger
    private let fetchGate: FetchGate

    /// `client` is used for every request and must not follow redirects itself
    /// (`redirectConfiguration: .disallow`): they are followed by hand, each hop passing `fetchGate`.
    public init(client: HTTPClient, fetchGate: FetchGate = .open, logger: Logger) {
        self.client = client
        self.fetchGate = fetchGate
        self.logger = logger
    }

    /// A media playlist as fetched (or as saved in the folder), with the URL it came from.
    struct MediaPlaylist {
        var playlist: HLSPlaylist
        var bytes: [UInt8]
        var url: URL
    }

    /// What `choosePlaylists` picked: the media playlist, and the audio rendition's when separate.
    struct ChosenPlaylists {
        var main: MediaPlaylist
        var bandwidth: Int?
        var audio: MediaPlaylist?
        var audioLanguage: String?
        /// The text of the local master playlist, when there is a separate audio rendition.
        var localMaster: String?
    }

    /// Downloads `request.playlistURL` into `request.destination`, or continues an earlier call
    /// that used the same destination. `progress` is called once the plan is known and after
    /// each item is recorded, from any thread.
    ///
    /// `activity` is called as body bytes arrive (before they count as progress), so a caller's
    /// stall detection can tell a slow link from a dead one.
    public func download(
        _ request: HLSDownloadRequest, progress: @escaping @Sendable (HLSDownloadProgress) -> Void = { _ in },
        activity: @escaping @Sendable () -> Void = {}
    ) async throws -> HLSDownloadResult {
        let directory = request.destination.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TransferError.hls(.fileSystem, underlying: error, "cannot create the destination folder \(directory)")
        }
        let fetcher = HLSDownloadFetcher(
            client: client, logger: logger, headers: request.headers, retry: request.retry, fetchGate: fetchGate,
            activity: activity)
        let playlistPath = directory + "/" + HLSDownloadJournal.playlistFileName
        let audioPlaylistPath = directory + "/" + HLSDownloadJournal.audioPlaylistFileName
        let localPlaylistPath = directory + "/" + Self.localPlaylistName

        /// Saves the chosen playlists, then the state that points at them.
        func begin(_ chosen: ChosenPlaylists, completed: [String: Int64]) throws(TransferError) -> HLSDownloadState {
            try HLSDownloadFiles.writeAtomically(chosen.main.bytes, to: playlistPath)
            if let audio = chosen.audio { try HLSDownloadFiles.writeAtomically(audio.bytes, to: audioPlaylistPath) }
            let state = HLSDownloadState(
                sourceURL: request.playlistURL.absoluteString, mediaPlaylistURL: chosen.main.url.absoluteString,
                variantBandwidth: chosen.bandwidth, audioPlaylistURL: chosen.audio?.url.absoluteString,
                audioLanguage: chosen.audioLanguage, localMaster: chosen.localMaster, completed: completed)
            try HLSDownloadJournal.save(state, directory: directory)
            return state
        }

        // The media playlists: the saved ones when resuming, otherwise fetched (and saved).
        var state: HLSDownloadState
        let playlist: HLSPlaylist
        var audioPlaylist: HLSPlaylist?
        let saved = try HLSDownloadJournal.load(directory: directory)
        let savedText = FileManager.default.contents(atPath: playlistPath)
        let savedAudioText =
            saved?.audioPlaylistURL == nil ? nil : FileManager.default.contents(atPath: audioPlaylistPath)
        if let saved, let savedText, saved.audioPlaylistURL == nil || savedAudioText != nil {
            let savedURL = URL(string: saved.mediaPlaylistURL) ?? request.playlistURL
            let savedPlaylist = try Self.parse(Array(savedText), url: savedURL)
            let savedAudioURL = saved.audioPlaylistURL.flatMap { URL(string: $0) } ?? savedURL
            let savedAudio = try savedAudioText.map { text throws(TransferError) in
                try Self.parse(Array(text), url: savedAudioURL)
            }
            if saved.sourceURL == request.playlistURL.absoluteString {
                state = saved
                playlist = savedPlaylist
                audioPlaylist = savedAudio
            } else {
                // A new URL for the same download (an expired link): fetch it, and keep the files
                // already done only when it serves the very same segment lists.
                let chosen = try await choosePlaylists(request, fetcher: fetcher)
                try Self.checkSameStream(
                    saved: savedPlaylist, savedURL: savedURL, new: chosen.main.playlist, newURL: chosen.main.url,
                    savedSource: saved.sourceURL, directory: directory,
                    sameVariant: saved.variantBandwidth == chosen.bandwidth)
                switch (savedAudio, chosen.audio) {
                case (nil, nil):
                    break
                case (let before?, let after?):
                    try Self.checkSameStream(
                        saved: before, savedURL: savedAudioURL, new: after.playlist, newURL: after.url,
                        savedSource: saved.sourceURL, directory: directory,
                        sameVariant: saved.audioLanguage == chosen.audioLanguage, media: .audio)
                default:
                    throw TransferError.hls(
                        .destinationInUse, url: chosen.main.url,
                        """
                        \(directory) holds the download of \(saved.sourceURL), \
                        \(savedAudio == nil ? "without" : "with") a separate audio rendition, and the new URL \
                        serves a stream \(savedAudio == nil ? "with" : "without") one; choose another folder, or \
                        delete this one to start over
                        """
                    )
                }
                playlist = chosen.main.playlist
                audioPlaylist = chosen.audio?.playlist
                state = try begin(chosen, completed: saved.completed)
            }
            logger.info(
                "HLS download resuming",
                metadata: [
                    "directory": "\(directory)", "completed": "\(saved.completed.count)",
                ])
        } else {
            // A new download: a final playlist left by something else must not pass for ours.
            HLSDownloadFiles.remove(localPlaylistPath)
            let chosen = try await choosePlaylists(request, fetcher: fetcher)
            playlist = chosen.main.playlist
            audioPlaylist = chosen.audio?.playlist
            state = try begin(chosen, completed: [:])
        }
        let mediaURL = URL(string: state.mediaPlaylistURL) ?? request.playlistURL
        let plan = try HLSDownloadPlan(playlist: playlist, baseURL: mediaURL)
        let audioURL = state.audioPlaylistURL.flatMap { URL(string: $0) }
        var audioPlan: HLSDownloadPlan?
        if let audioPlaylist, let audioURL {
            audioPlan = try HLSDownloadPlan(playlist: audioPlaylist, baseURL: audioURL, media: .audio)
        }
        let items = plan.items + (audioPlan?.items ?? [])

        // Trust a record only while its file is still there and long enough.
        var verified: [String: Int64] = [:]
        for item in items {
            guard let bytes = state.completed[item.id],
                let size = HLSDownloadFiles.size(of: directory + "/" + item.localName)
            else { continue }
            let needed = item.range.map { Int64($0.offset + $0.length) } ?? bytes
            if item.range == nil ? size == bytes : size >= needed { verified[item.id] = bytes }
        }
        if verified.count != state.completed.count {
            logger.info(
                "HLS download found recorded files missing or cut; fetching them again",
                metadata: [
                    "directory": "\(directory)", "recorded": "\(state.completed.count)",
                    "verified": "\(verified.count)",
                ])
            state.completed = verified
            try HLSDownloadJournal.save(state, directory: directory)
        }

        let journal = HLSDownloadJournal(
            state: state, directory: directory, totalItems: items.count, progress: progress)
        await journal.reportProgress()
        let pending = items.filter { verified[$0.id] == nil }
        try await fetchAll(
            pending, fetcher: fetcher, directory: directory, journal: journal,
            concurrency: max(1, request.concurrency))

        // Every item is recorded: only now does the folder get its playlists, `index.m3u8` last.
        let completed = await journal.completed
        if let missing = items.first(where: { completed[$0.id] == nil }) {
            // Cannot happen unless the journal lost a record; never write a playlist with a hole.
            throw TransferError.hls(
                .fileSystem, url: missing.url, "\(missing.localName) is not recorded after every fetch succeeded")
        }
        let local = plan.localPlaylist(playlist, baseURL: mediaURL)
        if let audioPlaylist, let audioPlan, let audioURL {
            guard let master = state.localMaster else {
                throw TransferError.hls(
                    .destinationInUse,
                    """
                    the resume state of \(directory) names an audio rendition but no master playlist; delete the \
                    folder to start over
                    """
                )
            }
            try HLSDownloadFiles.writeAtomically(
                local.serializedBytes(), to: directory + "/" + Self.localVideoPlaylistName)
            try HLSDownloadFiles.writeAtomically(
                audioPlan.localPlaylist(audioPlaylist, baseURL: audioURL).serializedBytes(),
                to: directory + "/" + Self.localAudioPlaylistName)
            try HLSDownloadFiles.writeAtomically(Array(master.utf8), to: localPlaylistPath)
        } else {
            try HLSDownloadFiles.writeAtomically(local.serializedBytes(), to: localPlaylistPath)
        }
        let totalBytes = items.reduce(Int64(0)) { $0 + (completed[$1.id] ?? 0) }
        logger.info(
            "HLS download complete",
            metadata: [
                "directory": "\(directory)", "items": "\(items.count)", "bytes": "\(totalBytes)",
                "audio": "\(audioURL?.absoluteString ?? "in the variant")",
            ])
        return HLSDownloadResult(
            directory: URL(fileURLWithPath: directory, isDirectory: true),
            localPlaylist: URL(fileURLWithPath: localPlaylistPath),
            mediaPlaylistURL: mediaURL, variantBandwidth: state.variantBandwidth,
            segmentCount: plan.segmentCount, audioPlaylistURL: audioPlan == nil ? nil : audioURL,
            audioLanguage: audioPlan == nil ? nil : state.audioLanguage,
            audioSegmentCount: audioPlan?.segmentCount ?? 0,
            itemCount: items.count, totalBytes: totalBytes, resumedItems: verified.count)
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
            if Task.isCancelled, !(firstError is TransferError) { throw CancellationError() }
            if let firstError { throw firstError }
        }
    }

    /// The media playlist to download (the request's URL when it is one, else the chosen
    /// variant) and, when the variant plays its sound from a separate rendition, that one's.
    private func choosePlaylists(_ request: HLSDownloadRequest, fetcher: HLSDownloadFetcher) async throws
        -> ChosenPlaylists
    {
        let top = try await fetcher.fetchPlaylist(request.playlistURL)
        let parsed = try Self.parse(top.bytes, url: top.finalURL)
        guard parsed.isMaster else {
            try Self.checkVOD(parsed, url: top.finalURL)
            return ChosenPlaylists(main: MediaPlaylist(playlist: parsed, bytes: top.bytes, url: top.finalURL))
        }

        let selection = try HLSDownloadSelection(
            master: parsed, url: top.finalURL, rendition: request.rendition, audioLanguage: request.audioLanguage)
        logger.info(
            "HLS download chose a variant",
            metadata: [
                "bandwidth": "\(selection.variant.bandwidth ?? 0)", "url": "\(selection.variantURL.absoluteString)",
                "audio": "\(selection.audioURL?.absoluteString ?? "in the variant")",
            ])
        let main = try await fetchMediaPlaylist(selection.variantURL, media: .main, fetcher: fetcher)
        guard let audio = selection.audio, let audioURL = selection.audioURL else {
            return ChosenPlaylists(main: main, bandwidth: selection.variant.bandwidth)
        }
        return ChosenPlaylists(
            main: main, bandwidth: selection.variant.bandwidth,
            audio: try await fetchMediaPlaylist(audioURL, media: .audio, fetcher: fetcher),
            audioLanguage: audio.language,
            localMaster: selection.localMaster(
                of: parsed, videoPlaylist: Self.localVideoPlaylistName, audioPlaylist: Self.localAudioPlaylistName))
    }

    /// A variant's or rendition's playlist, which must be a VOD media playlist.
    private func fetchMediaPlaylist(_ url: URL, media: HLSDownloadMedia, fetcher: HLSDownloadFetcher) async throws
        -> MediaPlaylist
    {
        let fetched = try await fetcher.fetchPlaylist(url, media: media)
        let playlist = try Self.parse(fetched.bytes, url: fetched.finalURL)
        guard !playlist.isMaster else {
            throw TransferError.hls(
                .invalidPlaylist, url: fetched.finalURL, rendition: media.label,
                "the \(media.label.map { $0 + " rendition" } ?? "variant") is another master playlist")
        }
        try Self.checkVOD(playlist, url: fetched.finalURL)
        return MediaPlaylist(playlist: playlist, bytes: fetched.bytes, url: fetched.finalURL)
    }

    /// Throws `destinationInUse` unless `new` looks like the same stream as `saved`: the same
    /// variant bandwidth, items (local names, ranges, roles), segment file names (the last path
    /// component, which a refreshed link keeps while its host or token changes) and durations.
    /// Two renditions of one stream whose segments share file names in different folders would
    /// pass when given as media playlist URLs: the caller must only pass a renewed link.
    static func checkSameStream(
        saved: HLSPlaylist, savedURL: URL, new: HLSPlaylist, newURL: URL, savedSource: String, directory: String,
        sameVariant: Bool, media: HLSDownloadMedia = .main
    ) throws(TransferError) {
        let before = try HLSDownloadPlan(playlist: saved, baseURL: savedURL, media: media)
        let after = try HLSDownloadPlan(playlist: new, baseURL: newURL, media: media)
        let same =
            sameVariant
            && before.items.map(\.id) == after.items.map(\.id)
            && before.items.map(\.url.lastPathComponent) == after.items.map(\.url.lastPathComponent)
            && before.items.map(\.role) == after.items.map(\.role)
            && saved.segments.map(\.duration) == new.segments.map(\.duration)
        guard same else {
            throw TransferError.hls(
                .destinationInUse, url: newURL, rendition: media.label,
                """
                \(directory) holds the download of \(savedSource), and the new URL serves a different \
                \(media.label.map { $0 + " " } ?? "")segment list; choose another folder, or delete this one to \
                start over
                """
            )
        }
    }

    static func parse(_ bytes: [UInt8], url: URL) throws(TransferError) -> HLSPlaylist {
        // Lenient: real playlists break small rules players forgive; what matters here (URIs,
        // ranges, keys, maps) is still read.
        let playlist: HLSPlaylist
        do {
            playlist = try HLSPlaylist(
                parsing: bytes, configuration: HLSParser.Configuration(throwsOnViolation: false, playlistURL: url))
        } catch {
            throw TransferError.hls(
                .invalidPlaylist, url: url, underlying: error, "the playlist cannot be parsed: \(error)")
        }
        guard
            bytes.starts(with: Array("#EXTM3U".utf8))
                || String(decoding: bytes.prefix(16), as: UTF8.self).contains("#EXTM3U")
        else {
            throw TransferError.hls(.invalidPlaylist, url: url, "the response is not an HLS playlist (no #EXTM3U)")
        }
        return playlist
    }

    static func checkVOD(_ playlist: HLSPlaylist, url: URL) throws(TransferError) {
        guard playlist.isEndList else {
            throw TransferError.hls(
                .liveStream, url: url,
                """
                the playlist has no #EXT-X-ENDLIST: it is live (or an unfinished event) and only VODs can be \
                downloaded
                """
            )
        }
        guard !playlist.segments.isEmpty else {
            throw TransferError.hls(.invalidPlaylist, url: url, "the playlist has no segments")
        }
    }
}
