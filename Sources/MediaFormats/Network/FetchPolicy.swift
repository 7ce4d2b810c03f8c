import Foundation

/// Where Tuner may connect when it fetches anything (`--allow-fetch`): presets and explicit rules,
/// comma-separated, any of which admits a connection.
///
/// - `any`: anywhere.
/// - `loopback`: only this machine, spelled as a browser and the resolver agree without asking DNS
///   (`localhost`, dotted-quad `127.x.x.x`, `::1`); a name that merely resolves to 127.0.0.1 is
///   refused, so no DNS answer can widen it. Tests and API fuzzing use it.
/// - `remote`: anywhere except this machine: no loopback (127/8, ::1), unspecified (0/8, ::),
///   link-local (169.254/16, fe80::/10) or multicast address, nor an address of this machine's own
///   interfaces. LAN ranges stay allowed. The default of a server listening beyond loopback.
/// - Rules: an address (`127.0.0.1`, `[::1]`), a network (`10.0.0.0/8`, `fd00::/8`) or a host
///   name (`provider.example`), the first and last with an optional port (`127.0.0.1:8096`,
///   `[::1]:9000`, `provider.example:8080`).
///
/// Addresses are judged as resolved (``permits(host:port:addresses:localAddresses:)``), never as
/// spelled: `127.1`, `2130706433`, `0x7f.1` and `::ffff:7f00:1` all reach 127.0.0.1. A name rule is
/// the one exception: the user named that host, so whatever it resolves to is allowed.
public struct FetchPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The named presets.
    public enum Preset: String, Sendable, Hashable, CaseIterable {
        case any, loopback, remote
    }

    /// One explicit rule.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        /// An address (prefix 32 or 128) or a network, with an optional port.
        case network(IPAddress, prefixLength: Int, port: Int?)
        /// A host name, lowercased and without a trailing dot, with an optional port.
        case host(String, port: Int?)

        public var description: String {
            switch self {
            case .network(let address, let prefixLength, let port):
                let full = prefixLength == address.bytes.count * 8
                let text = address.isIPv4 ? "\(address)" : "[\(address)]"
                let withPrefix = full ? text : "\(text)/\(prefixLength)"
                return port.map { "\(withPrefix):\($0)" } ?? withPrefix
            case .host(let name, let port):
                return port.map { "\(name):\($0)" } ?? name
            }
        }
    }

    public let presets: [Preset]
    public let rules: [Rule]

    public static let any = FetchPolicy(presets: [.any], rules: [])
    public static let loopback = FetchPolicy(presets: [.loopback], rules: [])
    public static let remote = FetchPolicy(presets: [.remote], rules: [])

    public init(presets: [Preset], rules: [Rule]) {
        self.presets = presets
        self.rules = rules
    }

    /// Parses `remote,127.0.0.1:8096,10.0.0.0/8,provider.example` (case-insensitive).
    public init(parsing text: String) throws(FetchPolicyError) {
        var presets: [Preset] = []
        var rules: [Rule] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = item.trimmingCharacters(in: .whitespaces).lowercased()
            if let preset = Preset(rawValue: item) {
                if !presets.contains(preset) { presets.append(preset) }
            } else {
                rules.append(try Self.rule(item))
            }
        }
        self.init(presets: presets, rules: rules)
    }

    /// The canonical text, which parses back to the same policy.
    public var description: String {
        (presets.map(\.rawValue) + rules.map(\.description)).joined(separator: ",")
    }

    /// Whether every connection is allowed without resolving names.
    public var allowsEverything: Bool { presets.contains(.any) }

    /// A first check on the URL alone, where a client hands one in (no name is resolved): an
    /// http(s) URL with a host, which for an IP literal or a `loopback`-only policy must be allowed
    /// as spelled. Every hop is checked again on its resolved addresses when fetched.
    public func permits(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = Self.host(of: url), !host.isEmpty
        else {
            return false
        }
        if allowsEverything { return true }
        let port = Self.port(of: url)
        if let literal = IPAddress(host) {
            return permits(host: host, port: port, addresses: [literal], localAddresses: [])
        }
        if matchesHostRule(host, port: port) || (presets.contains(.loopback) && Self.spellsLoopback(host)) {
            return true
        }
        // Whether the name's addresses are allowed is known only once it is resolved.
        return presets.contains(.remote) || rules.contains { if case .network = $0 { true } else { false } }
    }

    /// Whether a connection to `host` (as in the URL) on `port` may go to the resolved `addresses`:
    /// every one must be allowed, since the client may use any of them. `localAddresses` are this
    /// machine's own interface addresses, which `remote` refuses like loopback.
    public func permits(host: String, port: Int, addresses: [IPAddress], localAddresses: Set<IPAddress>) -> Bool {
        if allowsEverything { return true }
        if matchesHostRule(host, port: port) { return true }
        guard !addresses.isEmpty else { return false }
        return addresses.allSatisfy { address in
            for rule in rules {
                if case .network(let network, let prefixLength, let rulePort) = rule,
                    address.isInside(network, prefixLength: prefixLength), rulePort == nil || rulePort == port
                {
                    return true
                }
            }
            if presets.contains(.loopback), address.isLoopback, Self.spellsLoopback(host) { return true }
            if presets.contains(.remote), !Self.isThisMachine(address, localAddresses: localAddresses) { return true }
            return false
        }
    }

    /// Why a URL was refused, for error messages, with how to allow it.
    public func refusal(_ url: String, reason: String? = nil) -> String {
        let why = reason.map { ": \($0)" } ?? ""
        return """
            '\(SecretRedactor.redactURL(url))' was not fetched\(why). Tuner fetches only where --allow-fetch \
            (\(description)) allows; to allow it, add a rule such as --allow-fetch \(description),<host[:port]> \
            or a network like 10.0.0.0/8
            """
    }

    /// Addresses `remote` refuses: loopback, unspecified, link-local, multicast and this machine's.
    public static func isThisMachine(_ address: IPAddress, localAddresses: Set<IPAddress> = []) -> Bool {
        address.isLoopback || address.isUnspecified || address.isLinkLocal || address.isMulticast
            || localAddresses.contains(address)
    }

    /// The URL's host without IPv6 brackets and a trailing dot, lowercased.
    public static func host(of url: URL) -> String? {
        guard var name = url.host?.lowercased() else { return nil }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The URL's port, or its scheme's default.
    public static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    /// `localhost`, dotted-quad 127.x.x.x or ::1, as written.
    static func spellsLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        if host.contains(":") { return IPAddress(host).map { !$0.isIPv4 && $0.isLoopback } ?? false }
        return IPAddress(host)?.isLoopback ?? false
    }

    private func matchesHostRule(_ host: String, port: Int) -> Bool {
        rules.contains { rule in
            if case .host(let name, let rulePort) = rule {
                name == host && (rulePort == nil || rulePort == port)
            } else {
                false
            }
        }
    }

    private static func rule(_ text: String) throws(FetchPolicyError) -> Rule {
        guard !text.isEmpty else { throw FetchPolicyError(item: text, reason: "an empty item") }
        var body = Substring(text)
        var port: Int?
        if body.hasPrefix("[") {
            // [v6], [v6]:port, [v6]/len
            guard let close = body.firstIndex(of: "]") else {
                throw FetchPolicyError(item: text, reason: "a '[' without ']'")
            }
            let inside = body[body.index(after: body.startIndex)..<close]
            let rest = body[body.index(after: close)...]
            if rest.hasPrefix(":") {
                port = try Self.port(rest.dropFirst(), item: text)
                body = inside
            } else if rest.hasPrefix("/") || rest.isEmpty {
                body = inside + rest
            } else {
                throw FetchPolicyError(item: text, reason: "text after ']'")
            }
            guard body.contains(":") else { throw FetchPolicyError(item: text, reason: "not an IPv6 address") }
        } else if body.filter({ $0 == ":" }).count == 1 {
            let colon = body.firstIndex(of: ":")!
            port = try Self.port(body[body.index(after: colon)...], item: text)
            body = body[..<colon]
        }
        var prefixLength: Int?
        if let slash = body.firstIndex(of: "/") {
            let digits = body[body.index(after: slash)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let length = Int(digits)
            else {
                throw FetchPolicyError(item: text, reason: "a network's prefix length must be a number")
            }
            prefixLength = length
            body = body[..<slash]
        }
        if let address = IPAddress(String(body)) {
            let bits = address.bytes.count * 8
            let length = prefixLength ?? bits
            guard length <= bits else {
                throw FetchPolicyError(item: text, reason: "a prefix length above \(bits)")
            }
            guard prefixLength == nil || port == nil else {
                throw FetchPolicyError(item: text, reason: "a network with a port (give addresses a port)")
            }
            return .network(address, prefixLength: length, port: port)
        }
        guard prefixLength == nil else { throw FetchPolicyError(item: text, reason: "not an IP network") }
        var name = String(body)
        if name.hasSuffix(".") { name.removeLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let validLabels = labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
        // `127.1`, `2130706433` or `0x7f.1` are addresses in odd spellings, not names: refused,
        // so that a rule never means something other than it seems to.
        let looksNumeric = labels.last.map { $0.allSatisfy(\.isNumber) || $0.hasPrefix("0x") } ?? true
        guard validLabels, name.count <= 253, !looksNumeric else {
            throw FetchPolicyError(
                item: text,
                reason: "not a preset (any, loopback, remote), an address, a network like 10.0.0.0/8 or a host name")
        }
        return .host(name, port: port)
    }

    private static func port(_ text: Substring, item: String) throws(FetchPolicyError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text),
            (1...65535).contains(port)
        else {
            throw FetchPolicyError(item: item, reason: "a port must be a number from 1 to 65535")
        }
        return port
    }
}

/// A `--allow-fetch` item that is not a preset or a rule.
public struct FetchPolicyError: Error, Sendable, CustomStringConvertible {
    /// What failed; the one kind today, an enum so a caller can match it like other errors' kinds.
    public enum Kind: Sendable, Hashable {
        /// The item is neither a preset nor a rule that can be read.
        case invalidItem
    }

    public var kind: Kind { .invalidItem }
    /// The item as it was given.
    public let item: String
    /// What is wrong with it.
    public let reason: String

    public var description: String { "'\(item)' is \(reason)" }
}
