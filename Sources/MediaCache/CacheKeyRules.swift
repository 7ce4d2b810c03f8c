import Crypto
import Foundation

/// Maps request URLs to cache keys, so several URLs of one resource share one cache entry.
///
/// IPTV providers often put a session token or an expiry in the query string; ignoring those
/// parameters lets the second session find the first session's bytes.
public struct CacheKeyRules: Sendable, Equatable {
    /// Query parameter names (case-insensitive) left out of the key, on every host.
    public var ignoredQueryParameters: Set<String>

    public init(ignoredQueryParameters: [String] = []) {
        self.ignoredQueryParameters = Set(ignoredQueryParameters.map { $0.lowercased() })
    }

    /// The URL as the key sees it: scheme and host lowercased, no fragment, ignored parameters
    /// removed, the other parameters in their original order.
    public func normalizedURL(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        components.fragment = nil
        if let items = components.percentEncodedQueryItems, !ignoredQueryParameters.isEmpty {
            let kept = items.filter { !ignoredQueryParameters.contains($0.name.lowercased()) }
            components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        }
        return components.string ?? url.absoluteString
    }

    /// The cache key: a SHA-256 of the normalized URL, safe as a file name.
    public func key(for url: URL) -> String {
        let digest = SHA256.hash(data: Data(normalizedURL(url).utf8))
        let hex = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
