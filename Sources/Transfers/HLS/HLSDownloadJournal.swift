import Foundation

/// What the destination folder remembers between calls, in `.hls-download.json`.
struct HLSDownloadState: Codable, Sendable {
    static let currentFormat = 1

    var format = HLSDownloadState.currentFormat
    /// The playlist URL the download was asked for (master or media).
    var sourceURL: String
    /// The media playlist chosen, as finally fetched; its text is in `.hls-download.m3u8`.
    var mediaPlaylistURL: String
    var variantBandwidth: Int?
    /// The separate audio rendition's playlist, as finally fetched; its text is in
    /// `.hls-download-audio.m3u8`. Nil (and absent from older files) without one.
    var audioPlaylistURL: String?
    /// `LANGUAGE` of that rendition.
    var audioLanguage: String?
    /// The text of the local master playlist written as `index.m3u8` at the end, when there is a
    /// separate audio rendition (built from the origin's master when the download began).
    var localMaster: String?
    /// Item id → bytes, for every item whose file is complete, length-checked and synced.
    var completed: [String: Int64]
}

/// The resume state of one destination folder: the record of completed items, rewritten
/// atomically (temporary file, sync, rename) after each item, and the progress derived from it.
///
/// An actor so that concurrent fetches record their items one at a time.
actor HLSDownloadJournal {
    static let stateFileName = ".hls-download.json"
    static let playlistFileName = ".hls-download.m3u8"
    static let audioPlaylistFileName = ".hls-download-audio.m3u8"

    private var state: HLSDownloadState
    private let path: String
    private let totalItems: Int
    private let resumedItems: Int
    private let progress: @Sendable (HLSDownloadProgress) -> Void

    init(
        state: HLSDownloadState, directory: String, totalItems: Int,
        progress: @escaping @Sendable (HLSDownloadProgress) -> Void
    ) {
        self.state = state
        self.path = directory + "/" + Self.stateFileName
        self.totalItems = totalItems
        self.resumedItems = state.completed.count
        self.progress = progress
    }

    /// Reads the state of `directory`; nil when there is none (a new download).
    static func load(directory: String) throws(TransferError) -> HLSDownloadState? {
        let path = directory + "/" + stateFileName
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            let state = try JSONDecoder().decode(HLSDownloadState.self, from: data)
            guard state.format == HLSDownloadState.currentFormat else {
                throw TransferError.hls(
                    .destinationInUse,
                    "\(path) has format \(state.format); this version reads \(HLSDownloadState.currentFormat)")
            }
            return state
        } catch let error as TransferError {
            throw error
        } catch {
            throw TransferError.hls(
                .fileSystem, underlying: error,
                "the resume state \(path) cannot be read; delete the folder to start the download again")
        }
    }

    static func save(_ state: HLSDownloadState, directory: String) throws(TransferError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw TransferError.hls(.fileSystem, underlying: error, "cannot encode the resume state")
        }
        try HLSDownloadFiles.writeAtomically(Array(data), to: directory + "/" + stateFileName)
    }

    /// Records an item whose file is complete and synced, then reports progress.
    func markCompleted(_ item: HLSDownloadItem, bytes: Int64) throws(TransferError) {
        state.completed[item.id] = bytes
        try HLSDownloadJournal.save(state, directory: (path as NSString).deletingLastPathComponent)
        reportProgress()
    }

    func reportProgress() {
        progress(
            HLSDownloadProgress(
                completedItems: state.completed.count, totalItems: totalItems,
                completedBytes: state.completed.values.reduce(0, +), resumedItems: resumedItems))
    }

    var completed: [String: Int64] { state.completed }
}
