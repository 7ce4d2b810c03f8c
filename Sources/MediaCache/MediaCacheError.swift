import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the cache could not serve or store something: the module's one error type. `kind` says
/// what failed, `status` what a proxy answers, and the description what to do.
public struct MediaCacheError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Reading or writing the cache's files failed.
        case io
        /// The origin's resource changed while its bytes were being served.
        case resourceChanged
        /// An export needs every byte cached.
        case notFullyCached
        case invalidURL
        case exportFailed
        /// The disk is under the free-space reserve and nothing more can be evicted.
        case diskFull
        /// The origin failed: no answer, an error status, a bad answer, a refused redirect.
        case upstream
    }

    public let kind: Kind
    public let description: String
    /// The status a proxy replies with: for `.upstream` the origin's own for HTTP errors, 502 when
    /// the origin could not be reached or misbehaved, 504 when it did not answer in time.
    public let status: Int
    /// True for failures worth retrying (timeouts, resets, 408/429/5xx).
    public let isTransient: Bool
    /// The origin's headers, for passthrough of error responses.
    public let headers: HTTPHeaders
    /// The first bytes of the origin's error body, passed through to the client.
    public let body: ByteBuffer?

    init(
        kind: Kind, description: String, status: Int = 500, isTransient: Bool = false, headers: HTTPHeaders = [:],
        body: ByteBuffer? = nil
    ) {
        self.kind = kind
        self.description = description
        self.status = status
        self.isTransient = isTransient
        self.headers = headers
        self.body = body
    }

    static func io(_ operation: String, path: String, errno code: Int32) -> MediaCacheError {
        MediaCacheError(
            kind: .io,
            description:
                """
                cache \(operation) failed for \(path): \(String(cString: strerror(code))); check free space and \
                permissions of the cache folder
                """
        )
    }

    static let resourceChanged = MediaCacheError(
        kind: .resourceChanged,
        description:
            "the origin's resource changed while it was being served; the old bytes were dropped, request it again"
    )

    static func notFullyCached(_ url: String, held: Int64, length: Int64?) -> MediaCacheError {
        let total = length.map(String.init) ?? "unknown"
        return MediaCacheError(
            kind: .notFullyCached,
            description:
                "\(url) is not fully cached (\(held) of \(total) bytes); preload it first with `tuner cache preload`")
    }

    static func invalidURL(_ url: String) -> MediaCacheError {
        MediaCacheError(
            kind: .invalidURL, description: "'\(url)' is not an absolute http(s) URL")
    }

    static func exportFailed(_ reason: String) -> MediaCacheError {
        MediaCacheError(
            kind: .exportFailed, description: "export failed: \(reason)")
    }

    static func diskFull(directory: String, reserve: Int64) -> MediaCacheError {
        MediaCacheError(
            kind: .diskFull,
            description:
                """
                the disk holding \(directory) has less than its reserve of \(reserve) bytes free, and nothing \
                more can be evicted; free some space or lower the reserve
                """
        )
    }

    /// True when the resource changed at the origin while bytes of it were being served.
    public var isResourceChanged: Bool { kind == .resourceChanged }
}
