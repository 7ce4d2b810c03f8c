import Foundation
import NIOCore
import Synchronization

/// One simulated live stream: the segments of a VOD media playlist, looped forever, behind a
/// sliding-window playlist whose media sequence advances with the clock.
///
/// At `elapsed` seconds after the stream was registered, the media sequence is
/// `elapsed / slot + offset` (whole slots), and the window lists the `window` segments from there.
/// The stream pretends to have started `window` segments before registration, so a player gets a
/// full window at once. Absolute segment `n` is source segment `n % count`; whenever it wraps to
/// source segment 0 an `EXT-X-DISCONTINUITY` precedes it, because timestamps jump back there.
struct LiveStream: Sendable {
    struct Segment: Sendable {
        /// Absolute path of the source file.
        var path: String
        /// The source playlist's `EXTINF` duration, in seconds.
        var duration: Double
    }

    var name: String
    var segments: [Segment]
    var window: Int
    /// How long each media sequence number lasts, in seconds: the target duration.
    var targetDuration: Int
    var started: NIODeadline
    /// Wall-clock time of `started`, for Last-Modified.
    var startedWallClock: Date
    /// Slots added by `advanceLive`, so a test can move the stream on without waiting.
    var skippedSlots: Int = 0

    /// The first media sequence number of the window at `now`.
    func mediaSequence(at now: NIODeadline) -> Int {
        let elapsed = max(0, (now - started).nanoseconds)
        let slot = Int64(targetDuration) * 1_000_000_000
        return Int(elapsed / slot) + skippedSlots
    }

    /// The newest absolute segment number a client may fetch at `now`.
    func newestSegment(at now: NIODeadline) -> Int {
        mediaSequence(at: now) + window - 1
    }

    func segment(_ number: Int) -> Segment {
        segments[number % segments.count]
    }

    /// How many discontinuities precede absolute segment `number` in the whole stream.
    func discontinuitySequence(before number: Int) -> Int {
        number / segments.count
    }

    /// The media playlist at `now`.
    func playlist(at now: NIODeadline) -> String {
        let sequence = mediaSequence(at: now)
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:3",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:\(sequence)",
            "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence(before: sequence))",
        ]
        for number in sequence..<(sequence + window) {
            if number > sequence, number % segments.count == 0 {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            lines.append("#EXTINF:\(String(format: "%.6f", segment(number).duration)),")
            lines.append("seg\(number).ts")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the segments of a VOD media playlist: every `#EXTINF` and the URI after it. Only
    /// plain segments qualify (no keys, maps or byte ranges), since they are served as whole files.
    static func segments(ofPlaylistAt path: String) throws -> [Segment] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let directory = (path as NSString).deletingLastPathComponent
        var segments: [Segment] = []
        var pendingDuration: Double?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty { continue }
            if let value = line.removingPrefix("#EXTINF:") {
                pendingDuration = Double(value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? "")
            } else if line.hasPrefix("#EXT-X-KEY") || line.hasPrefix("#EXT-X-MAP") || line.hasPrefix("#EXT-X-BYTERANGE")
            {
                throw LiveStreamError.unsupportedSource(path, line)
            } else if !line.hasPrefix("#"), let duration = pendingDuration {
                let file = line.hasPrefix("/") ? line : directory + "/" + line
                segments.append(Segment(path: file, duration: duration))
                pendingDuration = nil
            }
        }
        guard !segments.isEmpty else { throw LiveStreamError.noSegments(path) }
        return segments
    }
}

/// Why `TestOrigin.serveLive` refused a source playlist.
public enum LiveStreamError: Error, CustomStringConvertible {
    case noSegments(String)
    case unsupportedSource(String, String)
    case invalidName(String)

    public var description: String {
        switch self {
        case .noSegments(let path): "no segments in \(path)"
        case .unsupportedSource(let path, let line): "\(path) cannot be looped as live: \(line)"
        case .invalidName(let name): "live stream name \"\(name)\" must be non-empty and contain no \"/\""
        }
    }
}

/// The live streams of one origin, by name; shared by its connections, so behind a lock.
final class LiveStreams: Sendable {
    private let streams = Mutex<[String: LiveStream]>([:])

    func set(_ stream: LiveStream) {
        streams.withLock { $0[stream.name] = stream }
    }

    func remove(_ name: String) {
        streams.withLock { _ = $0.removeValue(forKey: name) }
    }

    func stream(_ name: String) -> LiveStream? {
        streams.withLock { $0[name] }
    }

    func skip(_ name: String, slots: Int) {
        streams.withLock { $0[name]?.skippedSlots += slots }
    }
}
