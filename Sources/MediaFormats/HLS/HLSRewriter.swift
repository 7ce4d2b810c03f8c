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

    /// `resolve(_:)` as text: the absolute URI exactly as `resolve(_:)?.absoluteString` gives it.
    /// The usual URI (an http or https URL with a plain host and only characters a URL may hold,
    /// see ``isPlainHTTPURL(_:)``) is checked here without building a `URL`: Foundation's parser
    /// cost more than the resolution itself on a 40,001-segment playlist.
    public func resolveText(_ uri: String) -> String? {
        let absolute = resolver.resolve(uri)
        let text =
            HLSRewriter.needsPercentEncoding(absolute) ? HLSRewriter.percentEncodingDisallowed(absolute) : absolute
        if HLSRewriter.isPlainHTTPURL(text) { return text }
        return resolve(uri)?.absoluteString
    }

    /// Whether `text` is an absolute `http://` or `https://` URL (lowercase scheme) whose host is
    /// a name or IPv4 address (letters, digits, `.`, `-`) with at most a numeric port, and whose
    /// other bytes are RFC 3986 characters a path, query or fragment may hold, `%` only before two
    /// hex digits. Such a text is a valid URL as it is: `URL(string:)` accepts it unchanged.
    public static func isPlainHTTPURL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let prefix: Int
            if bytes.starts(with: "http://".utf8) {
                prefix = 7
            } else if bytes.starts(with: "https://".utf8) {
                prefix = 8
            } else {
                return false
            }
            var index = prefix
            while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
            guard index > prefix else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                var port = 0
                let digits = index
                while index < bytes.count, bytes[index] &- 0x30 < 10, index - digits < 5 {
                    port = port * 10 + Int(bytes[index] &- 0x30)
                    index += 1
                }
                guard index > digits, port <= 65535 else { return false }
            }
            guard
                index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                    || bytes[index] == UInt8(ascii: "#")
            else { return false }
            var fragments = 0
            var pendingHexDigits = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if pendingHexDigits > 0 {
                    guard byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6 else { return false }
                    pendingHexDigits -= 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "%"): pendingHexDigits = 2
                // Brackets belong to IPv6 hosts only; a second `#` is not a URL's.
                case UInt8(ascii: "["), UInt8(ascii: "]"): return false
                case UInt8(ascii: "#"):
                    fragments += 1
                    guard fragments == 1 else { return false }
                default:
                    guard isAllowedInURI(byte) else { return false }
                }
            }
            return pendingHexDigits == 0
        }
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, UInt8(ascii: "."), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// The URI of every site ``rewrittenBytes(_:reservingCapacity:replacement:)`` visits on the
    /// lines `lines` (all lines when nil), resolved as text by ``resolveText(_:)``, in order; nil
    /// for one that cannot be resolved. A caller can map the lines' URIs in shares (in parallel,
    /// say) and then rewrite with the results, the shares' arrays put one after another.
    public func resolvedURIs(of playlist: HLSPlaylist, lines: Range<Int>? = nil) -> [ResolvedURI?] {
        var found: [ResolvedURI?] = []
        var sites: [HLSURISite] = []
        var scratch: [HLSRawAttribute] = []
        let lines = lines?.clamped(to: playlist.lineRecords.indices) ?? playlist.lineRecords.indices
        playlist.storage.withUnsafeBufferPointer { p in
            for index in lines where playlist.hasURISites(line: index) {
                sites.removeAll(keepingCapacity: true)
                playlist.uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                for site in sites {
                    found.append(resolveText(playlist.uriText(site, p)).map { ResolvedURI(text: $0, kind: site.kind) })
                }
            }
        }
        return found
    }

    /// A URI of a playlist, resolved, and what it points at.
    public struct ResolvedURI: Sendable, Equatable {
        /// The absolute URI as text (`URL(string:)` accepts it).
        public let text: String
        public let kind: HLSURIKind

        public init(text: String, kind: HLSURIKind) {
            self.text = text
            self.kind = kind
        }
    }

    /// Where a URI sits, as ``rewrittenBytes(_:reservingCapacity:replacement:)`` hands it over.
    public struct Site {
        /// Its position among all the playlist's URIs, counted as ``resolvedURIs(of:lines:)``
        /// lists them.
        public let number: Int
        /// The 0-based line it is on.
        public let line: Int
        public let kind: HLSURIKind
        /// The URI as written, variables applied (not resolved).
        public let uri: String
        /// For a media segment's URI line: the segment's media sequence number, which names it
        /// in every version of a live playlist.
        public let mediaSequenceNumber: Int?
    }

    /// The playlist's text as `HLSPlaylist.serializedBytes()` writes it, with each URI replaced
    /// by the bytes `replacement(site, &output)` appends to `output`; one that returns false
    /// (having appended nothing) leaves its URI as written. Bytes that could break the line (CR, LF, a `"` in an
    /// attribute, a leading `#` or edge blank on a URI line) are percent-encoded after the call,
    /// so a replacement cannot inject lines or attributes.
    ///
    /// Unlike ``rewrite(_:_:)`` it writes the text straight into one buffer (reserve what the
    /// replacements add with `reservingCapacity`): rewriting a long playlist for a proxy was
    /// dominated by growing and copying buffers of megabytes.
    public func rewrittenBytes(
        _ playlist: HLSPlaylist, reservingCapacity extra: Int, replacement: (Site, inout [UInt8]) -> Bool
    ) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(playlist.storage.count + playlist.lineRecords.count + max(0, extra))
        var sites: [HLSURISite] = []
        var scratch: [HLSRawAttribute] = []
        var siteNumber = 0
        // Segments are in line order: a cursor finds each URI line's segment.
        var segment = 0
        let segments = playlist.segmentRecords
        playlist.storage.withUnsafeBufferPointer { p in
            for (index, record) in playlist.lineRecords.enumerated() {
                var copied = record.lineStart
                if playlist.hasURISites(line: index) {
                    sites.removeAll(keepingCapacity: true)
                    playlist.uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                    for site in sites {
                        defer { siteNumber += 1 }
                        let before = output.count
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<site.valueStart]))
                        let asLine = site.attributeName == nil
                        // An unquoted URI attribute (accepted only by a lenient parse) gets quotes,
                        // as the new text may hold a comma.
                        let addsQuotes = !asLine && !site.isQuoted
                        if addsQuotes { output.append(HLSBytes.quote) }
                        let start = output.count
                        var sequenceNumber: Int?
                        if asLine, site.kind == .segment {
                            while segment < segments.count, segments[segment].uriLine < index { segment += 1 }
                            if segment < segments.count, segments[segment].uriLine == index {
                                sequenceNumber = playlist.mediaSequence + segments[segment].sequenceOffset
                            }
                        }
                        let described = Site(
                            number: siteNumber, line: index, kind: site.kind, uri: playlist.uriText(site, p),
                            mediaSequenceNumber: sequenceNumber)
                        guard replacement(described, &output) else {
                            output.removeSubrange(before...)
                            continue
                        }
                        HLSRewriter.escapeInPlace(&output, from: start, asLine: asLine)
                        if addsQuotes { output.append(HLSBytes.quote) }
                        copied = site.valueEnd
                    }
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<record.end]))
                output.append(0x0A)
            }
        }
        return output
    }

    /// Percent-encodes, in `output[start...]`, what `appendEscaped` would: checked first, as a
    /// proxy's replacements (signed URLs) never hold such bytes.
    private static func escapeInPlace(_ output: inout [UInt8], from start: Int, asLine: Bool) {
        let count = output.count - start
        guard count > 0 else { return }
        let needsEscaping = output.withUnsafeBufferPointer { bytes in
            let region = UnsafeBufferPointer(rebasing: bytes[start...])
            if asLine, region[0] == HLSBytes.hash || HLSBytes.isSpace(region[0]) || HLSBytes.isSpace(region[count - 1])
            {
                return true
            }
            return region.contains { $0 == 0x0A || $0 == 0x0D || (!asLine && $0 == HLSBytes.quote) }
        }
        guard needsEscaping else { return }
        let text = Array(output[start...])
        output.removeSubrange(start...)
        appendEscaped(text, to: &output, asLine: asLine)
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
                guard playlist.hasURISites(line: index) else { continue }
                sites.removeAll(keepingCapacity: true)
                playlist.uriSites(ofLine: index, p, into: &sites, scratch: &scratch)
                line.removeAll(keepingCapacity: true)
                var copied = record.lineStart
                for site in sites {
                    guard let url = resolve(playlist.uriText(site, p)) else { continue }
                    let replacement = try transform(url, site.kind)
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: p[copied..<site.valueStart]))
                    if site.attributeName == nil {
                        HLSRewriter.appendEscaped(replacement.utf8, to: &line, asLine: true)
                    } else {
                        // An unquoted URI attribute (accepted only by a lenient parse) gets quotes,
                        // as the new text may hold a comma.
                        if !site.isQuoted { line.append(HLSBytes.quote) }
                        HLSRewriter.appendEscaped(replacement.utf8, to: &line, asLine: false)
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

    private static func appendEscaped(_ text: some Collection<UInt8>, to output: inout [UInt8], asLine: Bool) {
        let count = text.count
        for (offset, byte) in text.enumerated() {
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
