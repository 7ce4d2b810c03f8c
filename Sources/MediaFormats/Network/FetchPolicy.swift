import Foundation

/// Where Tuner may connect when it fetches on someone's behalf: anywhere (the default), or only
/// this machine (`--allow-fetch loopback`), so that tests and API fuzzing, which make up URLs by
/// the thousand, never send a request off the machine.
///
/// Loopback means the names a browser and the resolver agree on without asking DNS:
/// `localhost`, dotted-quad `127.x.x.x` and `::1`. A name that merely resolves to 127.0.0.1 is
/// refused, so no DNS answer can widen the policy.
public enum FetchPolicy: String, Sendable, Codable, CaseIterable {
    case any
    case loopback

    /// Whether a request to `url` is allowed: http(s) with a host the policy admits.
    public func permits(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host else {
            return false
        }
        return permits(host: host)
    }

    /// Whether a connection to `host` (a name or an IP literal, IPv6 with or without brackets)
    /// is allowed.
    public func permits(host: String) -> Bool {
        switch self {
        case .any:
            return true
        case .loopback:
            var name = host.lowercased()
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if name.hasSuffix(".") { name.removeLast() }
            if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0] == "127" else { return false }
            return parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && (Int(part) ?? 256) <= 255
            }
        }
    }

    /// Why a URL was refused, for error messages.
    public func refusal(_ url: String) -> String {
        """
        Tuner was started with --allow-fetch \(rawValue): it fetches only from this machine, and \
        '\(SecretRedactor.redactURL(url))' is elsewhere
        """
    }
}
