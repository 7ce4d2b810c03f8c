import Catalog
import Foundation
import LiveTV
import Logging
import NIOCore
import TunerAPI

/// Time-shift between the HTTP layer and the live engine: what a channel's window holds, the
/// window as an HLS playlist with wall-clock times, its segments, and the window as fragmented MP4
/// for browsers (pause, rewind, back to live).
public struct TimeshiftPlayback: Sendable {
    let live: LiveSessions
    let catalog: any CatalogStore
    let logger: Logger

    /// Instants from outside are seconds since 1970 up to the year 2100.
    static let latest: Double = 4_102_444_800

    var timeshift: Timeshift? { live.timeshift }

    /// What the window of `channelID` holds, where a stream from `at` (seconds since 1970;
    /// absent: now) starts, and where to play it.
    public func status(channelID: Int64, at: Double? = nil) async throws(FeatureError) -> TimeshiftAnswer {
        let item = try await channel(channelID)
        let asked = try at.map { value throws(FeatureError) in Int64(try Self.instant(value, "at") * 1000) }
        let window = timeshift?.window(for: channelID)
        let segments = window?.segments ?? []
        let settings = window?.settings ?? timeshift?.settings ?? TimeshiftSettings()
        let base = "/api/v1/channels/\(channelID)/timeshift"
        return TimeshiftAnswer(
            channelID: channelID,
            keeps: timeshift?.keeps(channelID: channelID, isFavourite: item.isFavourite) ?? false,
            start: segments.first.map { Double($0.start) / 1000 }, end: segments.last.map { Double($0.end) / 1000 },
            segments: segments.count, bytes: segments.reduce(Int64(0)) { $0 &+ $1.bytes },
            startAt: TimeshiftReader.first(of: segments, from: asked ?? TimeshiftWindow.now()).map {
                Double($0.start) / 1000
            },
            windowSeconds: settings.windowSeconds, maxBytes: settings.maxBytes,
            playlistURL: base + "/index.m3u8", streamURL: base + "/stream.mp4")
    }

    /// The window of `channelID` as HLS: every segment (a live playlist that slides with the
    /// window), or those overlapping `[from, to)` (seconds since 1970) ending with `ENDLIST`. Each
    /// segment carries `EXT-X-PROGRAM-DATE-TIME`; a break in the stream carries a discontinuity.
    public func playlist(channelID: Int64, from: Double?, to: Double?) async throws(FeatureError) -> String {
        _ = try await channel(channelID)
        let span = try Self.span(from: from, to: to)
        guard let window = timeshift?.window(for: channelID) else {
            throw FeatureError(.notFound, "channel \(channelID) has no time-shift window (see --timeshift)")
        }
        var segments = window.segments
        if let span {
            segments = segments.filter { $0.end > span.from && $0.start < span.to }
        }
        guard !segments.isEmpty else {
            throw FeatureError(.notFound, "channel \(channelID)'s time-shift window holds nothing of that span")
        }
        return Self.playlist(segments, ended: span != nil)
    }

    /// The HLS text of `segments` (named relative to the playlist, under `segments/`).
    static func playlist(_ segments: [TimeshiftSegment], ended: Bool) -> String {
        let target = max(1, segments.map { Int(($0.isOpen ? 0 : $0.duration + 999) / 1000) }.max() ?? 1)
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)",
            "#EXT-X-MEDIA-SEQUENCE:\(segments.first?.sequence ?? 0)",
        ]
        if ended { lines.append("#EXT-X-PLAYLIST-TYPE:VOD") }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        // The open segment is still growing: a player gets it once it is whole.
        var previous: TimeshiftSegment?
        for segment in segments where !segment.isOpen {
            if let previous, TimeshiftReader.isGap(between: previous, and: segment) {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            previous = segment
            let date = Date(timeIntervalSince1970: Double(segment.start) / 1000)
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + formatter.string(from: date))
            lines.append(String(format: "#EXTINF:%.3f,", Double(segment.duration) / 1000))
            lines.append("segments/" + segment.fileName)
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The file of a complete segment named as the playlist names it; anything else is 404.
    public func segmentPath(channelID: Int64, name: String) throws(FeatureError) -> String {
        guard TimeshiftSegment(fileName: name) != nil, let window = timeshift?.window(for: channelID),
            let path = window.completePath(named: name)
        else {
            throw FeatureError(.notFound, "channel \(channelID)'s time-shift window has no segment \(name)")
        }
        return path
    }

    /// The window of `channelID` for a browser from `from` (seconds since 1970; absent: the live
    /// edge), following the channel live: the channel is watched meanwhile (so it stays tuned and
    /// its window fills), and the stream goes on from wherever the browser stopped reading. It
    /// ends where the window has a gap (the player starts again after it).
    public func browserStream(
        channelID: Int64, from: Double?, to: Double? = nil, address: String
    ) async throws(FeatureError) -> TimeshiftStream {
        let item = try await channel(channelID)
        if let from { _ = try Self.instant(from, "from") }
        if to != nil {
            // A span in the past (local catch-up, a programme of the guide): read from disk alone.
            guard let span = try Self.span(from: from, to: to) else {
                throw FeatureError(.invalid, "to needs from (seconds since 1970)")
            }
            guard let window = timeshift?.window(for: channelID),
                TimeshiftReader.holds(window, from: span.from, to: span.to)
            else {
                throw FeatureError(.notFound, "channel \(channelID)'s time-shift window holds nothing of that span")
            }
            return TimeshiftStream(
                viewer: nil, reader: TimeshiftReader(window: window, from: span.from, until: span.to, endsAtGaps: true),
                logger: logger)
        }
        guard let timeshift, timeshift.keeps(channelID: channelID, isFavourite: item.isFavourite) else {
            throw FeatureError(
                .notFound,
                "channel \(channelID) keeps no time-shift window: start the server with --timeshift all, or "
                    + "--timeshift favourites and make it a favourite")
        }
        let viewer: LiveViewer
        do {
            viewer = try await live.watch(LiveSessions.Request(channelID: channelID, address: address))
        } catch {
            throw FeatureError(error)
        }
        guard let window = timeshift.window(for: channelID, create: true) else {
            viewer.close()
            throw FeatureError(.failed, "channel \(channelID)'s time-shift window cannot be opened")
        }
        let start = from.map { Int64($0 * 1000) } ?? TimeshiftWindow.now()
        return TimeshiftStream(
            viewer: viewer, reader: TimeshiftReader(window: window, from: start, endsAtGaps: true), logger: logger)
    }

    private func channel(_ id: Int64) async throws(FeatureError) -> CatalogItem {
        let item: CatalogItem?
        do {
            item = try await catalog.item(id: id)
        } catch {
            throw FeatureError(.failed, "the catalog cannot be read now: \(error)")
        }
        guard let item, item.kind == .live else { throw FeatureError(.notFound, "no live channel with id \(id)") }
        return item
    }

    static func instant(_ value: Double, _ name: String) throws(FeatureError) -> Double {
        guard value.isFinite, (0...latest).contains(value) else {
            throw FeatureError(.invalid, "\(name) is seconds since 1970, from 0 to \(Int(latest))")
        }
        return value
    }

    /// `[from, to)` in milliseconds, when both are given; one without the other is refused.
    static func span(from: Double?, to: Double?) throws(FeatureError) -> (from: Int64, to: Int64)? {
        switch (from, to) {
        case (nil, nil): return nil
        case (let from?, let to?):
            let start = try instant(from, "from")
            let end = try instant(to, "to")
            guard end > start else { throw FeatureError(.invalid, "to must come after from") }
            return (Int64(start * 1000), Int64(end * 1000))
        default:
            throw FeatureError(.invalid, "from and to go together (seconds since 1970)")
        }
    }
}

/// A browser's time-shifted stream: the channel watched (held, never read: the window gets the
/// bytes) and the window read from an instant on, through ffmpeg into fragmented MP4.
public final class TimeshiftStream: Sendable {
    /// The channel held tuned while a stream follows it live; nil for a span in the past.
    let viewer: LiveViewer?
    let reader: TimeshiftReader
    let logger: Logger

    init(viewer: LiveViewer?, reader: TimeshiftReader, logger: Logger) {
        self.viewer = viewer
        self.reader = reader
        self.logger = logger
    }

    /// Streams the MP4 to `write` until the browser leaves (a write throws) or the task is
    /// cancelled; the channel is let go at the end.
    public func run(_ write: (ByteBuffer) async throws -> Void) async throws {
        defer { viewer?.close() }
        try await TimeshiftRemux.fragmentedMP4(from: reader, deliver: write, logger: logger)
    }

    /// Lets the channel go without streaming (the answer was never sent).
    public func cancel() { viewer?.close() }
}
