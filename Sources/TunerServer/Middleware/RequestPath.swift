/// A request path reduced to the one form access decisions are made on.
///
/// Routers, proxies and file systems disagree about `//`, `/./`, `%2F`, `%2e` and case; a check
/// made on the raw path can be walked around by any of them (`//api/v1/…` once skipped the token
/// check). So the guard decides on this form: percent-decoded (every byte, `%2F` included),
/// empty segments dropped and lower-cased. Dot segments (`.` and `..`, also when encoded) are
/// refused outright: no client of Tuner's needs them, and refusing them means no layer below can
/// resolve them differently.
struct RequestPath: Equatable, Sendable {
    /// The decoded segments, lower-cased, without empty ones.
    let segments: [String]

    /// Why a path was refused (HTTP 400).
    enum Refusal: Error, Equatable {
        case notAbsolute
        case badPercentEncoding
        case dotSegment
        case controlCharacter
    }

    init(segments: [String]) {
        self.segments = segments
    }

    /// Normalises the path part of a request target (no query). Never traps on any input.
    init(normalising raw: some StringProtocol) throws(Refusal) {
        let bytes = Array(raw.utf8)
        guard bytes.first == UInt8(ascii: "/") else { throw .notAbsolute }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = Self.hexValue(bytes[index + 1]),
                    let low = Self.hexValue(bytes[index + 2])
                else { throw .badPercentEncoding }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        // Control bytes (NUL, CR, LF, …) have no place in a path and confuse logs and file systems.
        guard !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .controlCharacter }
        var segments: [String] = []
        // A backslash is a separator to some servers and file systems: treat it as one here too.
        for piece in decoded.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
        {
            let segment = String(decoding: piece, as: UTF8.self).lowercased()
            guard segment != ".", segment != ".." else { throw .dotSegment }
            segments.append(segment)
        }
        self.segments = segments
    }

    /// The normalised path, like `/api/v1/health`.
    var text: String { "/" + segments.joined(separator: "/") }

    /// True when the path is `prefix` or lies below it (`prefix` given normalised, without the
    /// leading slash, like `["stream"]`).
    func starts(with prefix: [String]) -> Bool {
        segments.count >= prefix.count && Array(segments.prefix(prefix.count)) == prefix
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
