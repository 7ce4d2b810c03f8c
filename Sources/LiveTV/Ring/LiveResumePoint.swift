import MediaFormats
import Synchronization

/// How far a live session got into a provider's answer that has a length (a file played as a
/// channel: a film, a recording, a song), so the next connection to the same channel resumes it
/// with a `Range` request instead of playing it again from the start: after a stall, viewers get
/// each byte once.
///
/// An endless answer (a live stream or a radio: no `Content-Length`) has no resume point; a new
/// connection to it plays what is live then, as before.
final class LiveResumePoint: Sendable {
    struct File: Equatable {
        /// The answer's length in bytes.
        var length: Int64
        /// `If-Range` for the next request: a strong ETag, else Last-Modified (nil: neither).
        var validator: String?
        /// Bytes of the answer delivered to the session.
        var delivered: Int64
    }

    private let state = Mutex<File?>(nil)

    /// The file being played, if the upstream's answer had a length.
    var file: File? { state.withLock { $0 } }

    /// A new answer from the start: remembered when it has a length (and forgotten otherwise).
    func started(length: Int64?, validator: String?) {
        state.withLock { file in
            file = length.map { File(length: $0, validator: validator, delivered: 0) }
        }
    }

    /// `count` more bytes of the answer were delivered.
    func delivered(_ count: Int) {
        state.withLock { file in
            guard let delivered = file?.delivered else { return }
            let (sum, overflow) = delivered.addingReportingOverflow(Int64(count))
            file?.delivered = overflow ? Int64.max : sum
        }
    }
}

extension LiveResumePoint {
    /// Whether a 206 answer's `Content-Range` continues `file` where it stopped: it must start at
    /// the byte after the ones delivered, and say the same length (or `*`).
    static func continues(_ file: File, contentRange: String?) -> Bool {
        guard let contentRange, let range = ContentRange(contentRange) else { return false }
        return range.first == file.delivered && (range.total == nil || range.total == file.length)
    }
}

/// The resume points of one live session, by channel (its own and the alternatives it tried), so
/// coming back to a channel after an alternative also goes on where it stopped.
final class LiveResumePoints: Sendable {
    private let points = Mutex<[Int64: LiveResumePoint]>([:])

    func point(for channelID: Int64) -> LiveResumePoint {
        points.withLock { points in
            if let point = points[channelID] { return point }
            let point = LiveResumePoint()
            points[channelID] = point
            return point
        }
    }
}
