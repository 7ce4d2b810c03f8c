import Foundation
import MediaFormats
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one check every outgoing connection passes: each hop's host is resolved (off the
/// cooperative pool, on NIO's blocking thread pool) and every address it resolves to must be
/// allowed by the ``FetchPolicy``.
///
/// The HTTP client resolves the name once more when it connects, so a name whose DNS answer
/// changes between the two lookups (DNS rebinding with a zero TTL) can still slip through; IP
/// literals and names that resolve the same both times cannot.
public struct FetchGate: Sendable {
    public let policy: FetchPolicy

    public init(policy: FetchPolicy) {
        self.policy = policy
    }

    /// A gate that lets everything through (tests and the CLI's own fetches).
    public static let open = FetchGate(policy: .any)

    /// Throws ``FetchError`` unless a connection for `url` is allowed: an http(s) URL whose host
    /// resolves only to allowed addresses. Under `any` nothing is resolved.
    public func check(_ url: URL) async throws(FetchError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = FetchPolicy.host(of: url), !host.isEmpty
        else {
            throw FetchError(.refused, url: url, reason: "only http(s) URLs with a host are fetched")
        }
        guard !policy.allowsEverything else { return }
        let port = FetchPolicy.port(of: url)
        let addresses: [IPAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { try Self.resolve(host) }
        } catch {
            throw FetchError(.refused, url: url, reason: "its host does not resolve (\(error))")
        }
        let local = (try? await NIOThreadPool.singleton.runIfActive { Self.localAddresses() }) ?? []
        guard policy.permits(host: host, port: port, addresses: addresses, localAddresses: local) else {
            let shown = addresses.map(\.description).joined(separator: ", ")
            throw FetchError(
                .refused, url: url, reason: "\(host) resolves to \(shown)", policy: policy)
        }
    }

    /// What getaddrinfo answers for `host`, as the HTTP client would look it up.
    static func resolve(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw ResolutionError(message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr.flatMap(Self.address) { addresses.append(address) }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw ResolutionError(message: "no address") }
        return addresses
    }

    /// The addresses of this machine's interfaces, which `remote` refuses like loopback.
    static func localAddresses() -> Set<IPAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<IPAddress> = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            if let address = entry.pointee.ifa_addr.flatMap(Self.address) { addresses.insert(address) }
            cursor = entry.pointee.ifa_next
        }
        return addresses
    }

    private static func address(_ pointer: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socket in
                withUnsafeBytes(of: socket.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { socket in
                withUnsafeBytes(of: socket.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }

    struct ResolutionError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
