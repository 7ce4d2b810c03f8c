#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as bytes, for the fetch policy's classification.
///
/// IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) IPv6 addresses are kept as the
/// IPv4 address they carry: a socket to `::ffff:127.0.0.1` reaches this machine's loopback, so it
/// must be judged as 127.0.0.1.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    /// The address from its bytes (4 or 16); nil for any other count.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4:
            self.bytes = bytes
        case 16:
            let prefixIsZero = bytes[0..<10].allSatisfy { $0 == 0 }
            let mapped = prefixIsZero && bytes[10] == 0xff && bytes[11] == 0xff
            // `::a.b.c.d`, but not `::` and `::1`, which are IPv6's own unspecified and loopback.
            let compatible =
                prefixIsZero && bytes[10] == 0 && bytes[11] == 0 && bytes[12..<15].contains { $0 != 0 }
            self.bytes = mapped || compatible ? Array(bytes[12..<16]) : bytes
        default:
            return nil
        }
    }

    /// A strictly spelled literal: dotted-quad IPv4 (`10.0.0.1`, no `127.1` or hex) or IPv6
    /// (`::1`, `::ffff:127.0.0.1`), without brackets. Nil for anything else, names included.
    public init?(_ text: String) {
        var buffer = [UInt8](repeating: 0, count: 16)
        if text.contains(":") {
            guard inet_pton(AF_INET6, text, &buffer) == 1 else { return nil }
            self.init(bytes: buffer)
        } else {
            guard inet_pton(AF_INET, text, &buffer) == 1 else { return nil }
            self.init(bytes: Array(buffer[0..<4]))
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
    }

    /// 0.0.0.0/8 and `::`: connecting to them reaches this machine.
    public var isUnspecified: Bool {
        isIPv4 ? bytes[0] == 0 : bytes.allSatisfy { $0 == 0 }
    }

    /// 169.254.0.0/16 (cloud metadata services live there) and fe80::/10.
    public var isLinkLocal: Bool {
        isIPv4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80
    }

    /// 224.0.0.0/4 (and the 240/4 reserved block with broadcast) and ff00::/8.
    public var isMulticast: Bool {
        isIPv4 ? bytes[0] >= 224 : bytes[0] == 0xff
    }

    /// Whether the address is inside `network`/`prefixLength` (an address of the same family).
    public func isInside(_ network: IPAddress, prefixLength: Int) -> Bool {
        guard network.bytes.count == bytes.count, prefixLength >= 0, prefixLength <= bytes.count * 8 else {
            return false
        }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if bytes[index] & mask != network.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var buffer = [CChar](repeating: 0, count: 64)
        guard inet_ntop(AF_INET6, bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
