import Foundation
import MediaFormats

/// The load balancers and reverse proxies whose `X-Forwarded-For` Tuner believes
/// (`--trusted-proxy`, addresses or networks such as `10.0.0.30` or `10.0.0.0/24`): a request
/// whose connection comes from one of them is from the address the proxies say, so per-address
/// limits and the streams list see players, not the balancer.
///
/// Only the proxies' own part of the header counts: read from its right end, each address a
/// trusted proxy added is passed over, and the first one no trusted proxy vouches for is the
/// client (what a client wrote into the header itself stays to the left, unread). A connection
/// from anywhere else keeps its own address whatever the header says.
public struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        var address: IPAddress
        var prefixLength: Int
    }

    let networks: [Network]

    /// No proxy is trusted.
    public static let none = TrustedProxies(networks: [])

    init(networks: [Network]) { self.networks = networks }

    /// Parses `10.0.0.30`, `10.0.0.0/24`, `fd00::/8`; an item that is none is an `invalid` error
    /// naming it.
    public init(parsing items: [String]) throws(FeatureError) {
        var networks: [Network] = []
        for item in items {
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else {
                throw FeatureError.invalid("'\(item.prefix(80))' is not an IP address or network like 10.0.0.0/24")
            }
            let bits = address.isIPv4 ? 32 : 128
            var prefix = bits
            if parts.count == 2 {
                guard parts[1].count <= 3, let length = Int(parts[1]), (0...bits).contains(length) else {
                    throw FeatureError.invalid("'\(item.prefix(80))' has no prefix length from 0 to \(bits)")
                }
                prefix = length
            }
            networks.append(Network(address: address, prefixLength: prefix))
        }
        self.networks = networks
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` is a trusted proxy's.
    public func contains(_ address: String) -> Bool {
        guard let parsed = IPAddress(address) else { return false }
        return networks.contains { parsed.isInside($0.address, prefixLength: $0.prefixLength) }
    }

    /// The client's address for a connection from `peer` carrying these `X-Forwarded-For`
    /// values (each field a comma-separated list, in the order received).
    public func client(peer: String, forwardedFor fields: [String]) -> String {
        guard !fields.isEmpty, contains(peer) else { return peer }
        let hops = fields.joined(separator: ",").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        // At most 32 hops are looked at: a longer chain is no proxy setup Tuner knows.
        for hop in hops.reversed().prefix(32) {
            guard let address = IPAddress(hop) else { return peer }
            if !contains(hop) { return address.description }
        }
        return peer
    }
}
