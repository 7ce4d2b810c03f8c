import Foundation

/// Why an HLS download stopped: what failed (which URI, which segment), the HTTP status or the
/// underlying error, and how a task manager should treat it (`classification`).
///
/// Completed files stay recorded in the destination whatever the error, so calling `download`
/// again continues where this one stopped. Task cancellation is not reported with this type: the
/// downloader rethrows `CancellationError`.
public struct HLSDownloadError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct with static members, so new kinds never break a caller's `switch`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The server answered with an error status (see `httpStatus`) after the retries, or with
        /// one that is not worth retrying (404, 410, 401, 403, other 4xx).
        public static let httpStatus = Kind(name: "HTTP status")
        /// The connection failed (refused, reset, timed out, closed early) on every try.
        public static let transport = Kind(name: "transport")
        /// No byte arrived for the stall timeout, on every try.
        public static let stalled = Kind(name: "stalled")
        /// The body was not as long as `Content-Length` (or the byte range) said, on every try.
        public static let lengthMismatch = Kind(name: "length mismatch")
        /// The playlist is live (no `#EXT-X-ENDLIST`); only VODs can be downloaded.
        public static let liveStream = Kind(name: "live stream")
        /// A playlist could not be parsed, or has no segments.
        public static let invalidPlaylist = Kind(name: "invalid playlist")
        /// No variant of the master playlist fits the requested rendition.
        public static let noMatchingVariant = Kind(name: "no matching variant")
        /// The stream needs something this downloader does not fetch (DRM keys).
        public static let unsupported = Kind(name: "unsupported")
        /// Writing to the destination failed (disk full, permissions).
        public static let fileSystem = Kind(name: "file system")
        /// The destination holds another download (of a different playlist URL).
        public static let destinationInUse = Kind(name: "destination in use")

        public var description: String { name }
    }

    /// How a task manager should react.
    public enum Classification: String, Sendable, Hashable {
        /// Worth retrying later: timeouts, resets, stalls, 408/429/5xx.
        case transient
        /// Retrying will not help: 404/410, other 4xx, invalid or live playlists, disk errors.
        case permanent
        /// The URL (or its credentials) expired: 401/403. Retry with a new URL.
        case needsNewURL
    }

    public let kind: Kind
    /// The URL that failed, when a request failed.
    public let url: URL?
    /// The 0-based index of the segment in the media playlist, when the file is a segment (for a
    /// byte-range file shared by several segments, the first segment that failed).
    public let segmentIndex: Int?
    /// `"audio"` when the file belongs to the separate audio rendition of the chosen variant
    /// (then `segmentIndex` counts that rendition's segments); nil for the variant's own files.
    public let rendition: String?
    /// The HTTP status of the last try, when the server answered.
    public let httpStatus: Int?
    /// `Retry-After` of the last answer, when the server sent one.
    public let retryAfter: Duration?
    /// How many tries were made.
    public let attempts: Int
    /// The error of the last try (an AsyncHTTPClient, NIO or POSIX error), when there was one.
    public let underlying: (any Error)?
    /// Details in words.
    public let message: String

    init(
        _ kind: Kind, url: URL? = nil, segmentIndex: Int? = nil, rendition: String? = nil, httpStatus: Int? = nil,
        retryAfter: Duration? = nil, attempts: Int = 0, underlying: (any Error)? = nil, _ message: String
    ) {
        self.kind = kind
        self.url = url
        self.segmentIndex = segmentIndex
        self.rendition = rendition
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.attempts = attempts
        self.underlying = underlying
        self.message = message
    }

    public var classification: Classification {
        if let status = httpStatus, kind == .httpStatus {
            return HLSDownloadError.classify(status: status)
        }
        switch kind {
        case .transport, .stalled, .lengthMismatch: return .transient
        default: return .permanent
        }
    }

    /// 408, 429 and 5xx are transient; 401 and 403 need a new URL; everything else is permanent.
    static func classify(status: Int) -> Classification {
        switch status {
        case 408, 429, 500...599: .transient
        case 401, 403: .needsNewURL
        default: .permanent
        }
    }

    public var description: String {
        var text = "HLS download failed (\(kind), \(classification.rawValue))"
        if let segmentIndex { text += " at \(rendition.map { $0 + " " } ?? "")segment \(segmentIndex)" }
        if let url { text += " for \(url.absoluteString)" }
        if let httpStatus { text += ": HTTP \(httpStatus)" }
        text += ": " + message
        if attempts > 1 { text += " (after \(attempts) tries)" }
        if let underlying { text += " [\(String(describing: type(of: underlying))): \(underlying)]" }
        return text
    }
}
