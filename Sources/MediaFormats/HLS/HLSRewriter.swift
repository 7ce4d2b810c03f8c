import Foundation

/// Rewrites every URI of a playlist through a caller-given mapping (for a proxy: to signed proxy
/// URLs), leaving every other byte of the playlist as it was.
///
/// Each URI is resolved against `baseURL` (the playlist's final URL, after redirects) before it
/// is handed to the mapping, with its kind so that keys, segments and playlists can be treated
/// differently. The set of URIs is `HLSPlaylist.uriReferences`.
public struct HLSRewriter: Sendable {
    /// The URL relative URIs are resolved against: where the playlist was finally fetched from.
    public let baseURL: URL

    private let resolver: HLSURIResolver

    public init(baseURL: URL) {
        self.baseURL = baseURL.absoluteURL
        self.resolver = HLSURIResolver(base: baseURL.absoluteString)
    }

    /// Resolves a URI as written in a playlist against `baseURL` (RFC 3986 section 5).
    ///
    /// Characters a URL may not hold (spaces, `\`, `{`, non-ASCII…) are percent-encoded, as
    /// players do; nil only when the text still cannot be read as a URL.
    public func resolve(_ uri: String) -> URL? {
        let absolute = resolver.resolve(uri)
        if HLSRewriter.needsPercentEncoding(absolute) {
            return URL(string: HLSRewriter.percentEncodingDisallowed(absolute))
        }
        return URL(string: absolute) ?? URL(string: HLSRewriter.percentEncodingDisallowed(absolute))
    }

    /// The URIs ``rewrite(_:_:)`` hands to its transform, resolved, in the same order: a caller
    /// can map them all first (in parallel, say) and then rewrite with the results.
    public func resolvedURIs(of playlist: HLSPlaylist) -> [ResolvedURI] {
        var found: [ResolvedURI] = []
        var sites: [HLSURISite] = []
        var scratch: [HLSRawAttribute] = []
        playlist.storage.withUnsafeBufferPointer { p in
            for index in playlist.lineRecords.indices {
                let record = playlist.lineRecords[index]
                guard record.kind == .uri || (record.kind == .tag && !record.tag.spec.uriAttributes.isEmpty) else {
                    continue
                }
                sites.removeAll(keepingCapacity: true)
                playlist.uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                for site in sites {
                    if let url = resolve(playlist.uriText(site, p)) {
                        found.append(ResolvedURI(url: url, kind: site.kind))
                    }
                }
            }
        }
        return found
    }

    /// A URI of a playlist, resolved, and what it points at.
    public struct ResolvedURI: Sendable {
        public let url: URL
        public let kind: HLSURIKind
    }

    /// Returns a playlist whose URIs are `transform(resolvedURL, kind)`.
    ///
    /// Only the URI text changes: a URI line is replaced whole; in an attribute list only the
    /// value inside the quotes is, so attribute order, unknown attributes and spacing are kept.
    /// A mapped URI is written with `"`, CR and LF percent-encoded (and a leading `#` or edge
    /// whitespace on a URI line), so it cannot break the line it sits in. A URI that cannot be
    /// resolved (see `resolve(_:)`) is left as written.
    public func rewrite<Failure: Error>(
        _ playlist: HLSPlaylist, _ transform: (URL, HLSURIKind) throws(Failure) -> String
    ) throws(Failure) -> HLSPlaylist {
        var storage = playlist.storage
        var records = playlist.lineRecords
        var sites: [HLSURISite] = []
        var scratch: [HLSRawAttribute] = []
        var line: [UInt8] = []
        try playlist.storage.withUnsafeBufferPointer { (p) throws(Failure) in
            for index in records.indices {
                let record = records[index]
                guard record.kind == .uri || (record.kind == .tag && !record.tag.spec.uriAttributes.isEmpty) else {
                    continue
                }
                sites.removeAll(keepingCapacity: true)
                playlist.uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                line.removeAll(keepingCapacity: true)
                var copied = record.lineStart
                for site in sites {
                    guard let url = resolve(playlist.uriText(site, p)) else { continue }
                    let replacement = try transform(url, site.kind)
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<site.valueStart]))
                    if site.attributeName == nil {
                        HLSRewriter.appendEscaped(replacement, to: &line, asLine: true)
                    } else {
                        // An unquoted URI attribute (accepted only by a lenient parse) gets quotes,
                        // as the new text may hold a comma.
                        if !site.isQuoted { line.append(HLSBytes.quote) }
                        HLSRewriter.appendEscaped(replacement, to: &line, asLine: false)
                        if !site.isQuoted { line.append(HLSBytes.quote) }
                    }
                    copied = site.valueEnd
                }
                guard copied != record.lineStart else { continue }
                line.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<record.end]))
                // The new line goes after the existing text; the name and the bytes before the
                // first URI are unchanged, so the other offsets move with the line start.
                let newStart = storage.count
                let shift = newStart - record.lineStart
                storage.append(contentsOf: line)
                records[index].lineStart = newStart
                records[index].contentStart += shift
                records[index].nameEnd += shift
                records[index].valueStart += shift
                records[index].end = newStart + line.count
            }
        }
        var result = playlist
        result.storage = storage
        result.lineRecords = records
        return result
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendEscaped(_ text: String, to output: inout [UInt8], asLine: Bool) {
        let count = text.utf8.count
        for (offset, byte) in text.utf8.enumerated() {
            let atEdge = offset == 0 || offset == count - 1
            let escape =
                byte == 0x0A || byte == 0x0D || (!asLine && byte == HLSBytes.quote)
                || (asLine && offset == 0 && byte == HLSBytes.hash)
                || (asLine && atEdge && HLSBytes.isSpace(byte))
            if escape {
                output.append(0x25)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            } else {
                output.append(byte)
            }
        }
    }

    /// Whether `text` has a byte a URL may not hold, or a `%` that does not start an escape.
    /// Checked before `URL(string:)` because Foundation, given one bad escape, encodes every `%`
    /// of the string again (`%20` would become `%2520`).
    static func needsPercentEncoding(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        var pendingHexDigits = 0
        while let byte = utf8.next() {
            if pendingHexDigits > 0 {
                guard byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6 else { return true }
                pendingHexDigits -= 1
            } else if byte == UInt8(ascii: "%") {
                pendingHexDigits = 2
            } else if !isAllowedInURI(byte) {
                return true
            }
        }
        return pendingHexDigits > 0
    }

    private static func isAllowedInURI(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"): true
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// Percent-encodes every byte outside RFC 3986's unreserved and reserved sets, and `%` not
    /// followed by two hex digits.
    static func percentEncodingDisallowed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        func isHex(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6 }
        for (index, byte) in bytes.enumerated() {
            let isAllowed =
                byte == UInt8(ascii: "%")
                ? index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
                : isAllowedInURI(byte)
            if isAllowed {
                output.append(byte)
            } else {
                output.append(0x25)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
