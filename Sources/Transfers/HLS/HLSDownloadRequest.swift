import Foundation
import MediaFormats

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
    /// above it, the download fails with `TransferError.Kind.noMatchingVariant` rather than
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
    /// When a file's failed try is tried again: the retry policy every transfer shares.
    /// `maximumAttempts` counts the retries (tries minus one); a `Retry-After` longer than
    /// `maximumRetryAfter` is not waited out inside the download but ends it with the error.
    public var policy: RetryPolicy
    /// A request that receives no byte (no response head, or no body chunk) for this long is
    /// abandoned and counts as a failed try.
    public var stallTimeout: Duration

    public init(policy: RetryPolicy, stallTimeout: Duration = .seconds(30)) {
        self.policy = policy
        self.stallTimeout = stallTimeout
    }

    /// `attempts` tries per file (the first included, at least 1), waits from `baseDelay`
    /// doubling to `maxDelay` with jitter over the upper half, `Retry-After` up to `maxRetryAfter`.
    public init(
        attempts: Int = 5,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        stallTimeout: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120)
    ) {
        self.init(
            policy: RetryPolicy(
                baseDelay: baseDelay.seconds, multiplier: 2, maximumDelay: maxDelay.seconds, jitter: 0.5,
                maximumAttempts: max(1, attempts) - 1, maximumRetryAfter: maxRetryAfter.seconds),
            stallTimeout: stallTimeout)
    }

    /// 5 tries, 0.5 s doubling to at most 30 s, 30 s stall timeout, `Retry-After` up to 120 s.
    public static var `default`: HLSDownloadRetrySettings { HLSDownloadRetrySettings() }

    /// Tries per file, the first included.
    public var attempts: Int { policy.maximumAttempts + 1 }
}
