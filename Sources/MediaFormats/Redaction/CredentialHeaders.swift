import Foundation

/// Which request headers carry credentials for one origin, and when a redirect leaves it.
///
/// Every client that follows redirects by hand (the cache's upstream client, the stream checker)
/// drops these when the next hop is another origin, as curl, browsers and AsyncHTTPClient do: a
/// provider's redirect to a CDN must not hand the CDN the provider account.
public enum CredentialHeaders {
    /// `Authorization`, `Cookie` and `Proxy-Authorization`, in any case.
    public static func isCredential(_ name: String) -> Bool {
        switch name.lowercased() {
        case "authorization", "cookie", "proxy-authorization": return true
        default: return false
        }
    }

    /// Same scheme, host and port (default ports filled in), the way RFC 6454 compares origins.
    public static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func parts(_ url: URL) -> (String, String, Int) {
            let scheme = url.scheme?.lowercased() ?? ""
            return (scheme, url.host?.lowercased() ?? "", url.port ?? (scheme == "https" ? 443 : 80))
        }
        return parts(a) == parts(b)
    }
}
