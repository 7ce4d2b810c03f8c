#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the cache could not serve or store something; the description says what to do.
public struct MediaCacheError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable, Equatable {
        case io
        case resourceChanged
        case notFullyCached
        case invalidURL
        case exportFailed
        case diskFull
    }

    let code: Code
    public let description: String

    static func io(_ operation: String, path: String, errno code: Int32) -> MediaCacheError {
        MediaCacheError(
            code: .io,
            description:
                """
                cache \(operation) failed for \(path): \(String(cString: strerror(code))); check free space and \
                permissions of the cache folder
                """
        )
    }

    static let resourceChanged = MediaCacheError(
        code: .resourceChanged,
        description:
            "the origin's resource changed while it was being served; the old bytes were dropped, request it again"
    )

    static func notFullyCached(_ url: String, held: Int64, length: Int64?) -> MediaCacheError {
        let total = length.map(String.init) ?? "unknown"
        return MediaCacheError(
            code: .notFullyCached,
            description:
                "\(url) is not fully cached (\(held) of \(total) bytes); preload it first with `tuner cache preload`")
    }

    static func invalidURL(_ url: String) -> MediaCacheError {
        MediaCacheError(code: .invalidURL, description: "'\(url)' is not an absolute http(s) URL")
    }

    static func exportFailed(_ reason: String) -> MediaCacheError {
        MediaCacheError(code: .exportFailed, description: "export failed: \(reason)")
    }

    static func diskFull(directory: String, reserve: Int64) -> MediaCacheError {
        MediaCacheError(
            code: .diskFull,
            description:
                """
                the disk holding \(directory) has less than its reserve of \(reserve) bytes free, and nothing \
                more can be evicted; free some space or lower the reserve
                """
        )
    }

    /// True when the resource changed at the origin while bytes of it were being served.
    public var isResourceChanged: Bool { code == .resourceChanged }
}
