import Foundation

/// What to download with `HLSDownloader`: a VOD playlist (master or media), the headers to send,
/// which rendition to keep, where to put it, and how hard to try.
public struct HLSDownloadRequest: Sendable {
    /// The playlist to download: a master playlist (a variant is chosen with `rendition`) or a
    /// media playlist (downloaded as it is).
    public var playlistURL: URL
    /// Headers sent with every request (playlists, keys, init sections, segments), for providers
    /// that need a `User-Agent`, `Referer` or `Authorization`.
    public var headers: [String: String]
    /// Which variant of a master playlist to download; ignored for a media playlist.
    public var rendition: HLSDownloadRendition
    /// The audio language wanted (a language tag such as `en` or `pt-BR`) when the chosen variant
    /// plays its sound from a group of separate audio renditions; nil takes the group's
    /// `DEFAULT=YES` rendition. A language the group does not offer falls back to that default.
    public var audioLanguage: String?
    /// The folder that receives the files, `index.m3u8` and the resume state. Created if needed.
    /// Calling `download` again with the same folder resumes.
    public var destination: URL
    /// Retries, backoff and stall detection for each request.
    public var retry: HLSDownloadRetrySettings
    /// How many files are fetched at once.
    public var concurrency: Int

    public init(
        playlistURL: URL,
        destination: URL,
        headers: [String: String] = [:],
        rendition: HLSDownloadRendition = .highestBandwidth,
        audioLanguage: String? = nil,
        retry: HLSDownloadRetrySettings = .default,
        concurrency: Int = 4
    ) {
        self.playlistURL = playlistURL
        self.destination = destination
        self.headers = headers
        self.rendition = rendition
        self.audioLanguage = audioLanguage
        self.retry = retry
        self.concurrency = concurrency
    }
}

/// Which variant of a master playlist to download.
///
/// A struct with static members, so a new way of choosing never breaks a caller's `switch`.
public struct HLSDownloadRendition: Sendable, Hashable, CustomStringConvertible {
    enum Choice: Sendable, Hashable {
        case highest
        case highestAtMost(Int)
    }

    let choice: Choice

    /// The variant with the highest `BANDWIDTH`.
    public static let highestBandwidth = HLSDownloadRendition(choice: .highest)

    /// The variant with the highest `BANDWIDTH` not above `bitsPerSecond`. When every variant is
    /// above it, the download fails with `HLSDownloadError.Kind.noMatchingVariant` rather than
    /// quietly taking more than was asked for.
    public static func highestBandwidth(atMost bitsPerSecond: Int) -> HLSDownloadRendition {
        HLSDownloadRendition(choice: .highestAtMost(bitsPerSecond))
    }

    public var description: String {
        switch choice {
        case .highest: "highest bandwidth"
        case .highestAtMost(let limit): "highest bandwidth up to \(limit) bit/s"
        }
    }
}

/// How each request of a download is retried.
///
/// Every file (playlist, key, init section, segment) gets `attempts` tries. Between tries the
/// downloader waits `min(maxDelay, baseDelay × 2^(try − 1))`, half of it fixed and half random
/// (jitter, so many downloads that failed together do not retry together), or what the server's
/// `Retry-After` asks for when it sent one (up to `maxRetryAfter`; a longer wait ends the
/// download with a transient error that carries `retryAfter`, for the caller to schedule).
public struct HLSDownloadRetrySettings: Sendable, Hashable {
    /// Tries per file, the first included (at least 1).
    public var attempts: Int
    /// The wait before the second try.
    public var baseDelay: Duration
    /// The longest wait between two tries.
    public var maxDelay: Duration
    /// A request that receives no byte (no response head, or no body chunk) for this long is
    /// abandoned and counts as a failed try.
    public var stallTimeout: Duration
    /// The longest `Retry-After` honoured by waiting inside the download.
    public var maxRetryAfter: Duration

    public init(
        attempts: Int = 5,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        stallTimeout: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120)
    ) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.stallTimeout = stallTimeout
        self.maxRetryAfter = maxRetryAfter
    }

    /// 5 tries, 0.5 s doubling to at most 30 s, 30 s stall timeout, `Retry-After` up to 120 s.
    public static var `default`: HLSDownloadRetrySettings { HLSDownloadRetrySettings() }

    /// The wait before try `attempt + 1` after try `attempt` (1-based) failed: exponential with a
    /// cap, and jitter over the upper half.
    func delay(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let full = min(maxDelay, baseDelay * (1 << exponent))
        let half = full / 2
        let jitter = Double.random(in: 0...1)
        return half + half * jitter
    }
}
