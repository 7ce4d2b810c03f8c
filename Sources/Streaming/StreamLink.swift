import Crypto
import Foundation
import MediaFormats
import Synchronization

/// An origin URL with the headers the proxy must send upstream: what a proxy URL carries.
public struct StreamLink: Sendable, Equatable, Codable {
    public var url: URL
    public var headers: [StreamHeader]
    /// What the URL is, when a rewritten playlist said so (nil for links made by users).
    public var kind: StreamKind?
    /// The media playlist a segment came from, so serving it can pre-fetch what follows.
    public var playlist: URL?
    /// The live channel the URL plays, when the link was made for one: the proxy then serves it
    /// through the channel's live session (one upstream for all its viewers).
    public var channel: Int64?

    public init(
        url: URL, headers: [StreamHeader] = [], kind: StreamKind? = nil, playlist: URL? = nil, channel: Int64? = nil
    ) {
        self.url = url
        self.headers = headers
        self.kind = kind
        self.playlist = playlist
        self.channel = channel
    }

    /// The headers as name/value pairs.
    public var headerPairs: [(String, String)] { headers.map { ($0.name, $0.value) } }

    /// Checks what a proxy URL may carry: an absolute http(s) URL, and headers that are valid
    /// HTTP and leave the proxy's own headers alone. Header injection (CR/LF) is refused.
    public func validate() throws(StreamError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host,
            !host.isEmpty
        else {
            throw .invalid("only absolute http and https URLs can be proxied, got '\(url.absoluteString)'")
        }
        guard headers.count <= 32 else { throw .invalid("at most 32 headers can be attached to a stream") }
        for header in headers {
            guard !header.name.isEmpty, header.name.utf8.count <= 256,
                header.name.utf8.allSatisfy(HTTPToken.isTokenByte)
            else {
                throw .invalid("'\(header.name)' is not a valid HTTP header name")
            }
            guard header.value.utf8.count <= 8192,
                !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
            else {
                throw .invalid(
                    "the value of header '\(header.name)' contains a line break or NUL, which would inject headers")
            }
            if Self.reservedHeaders.contains(header.name.lowercased()) {
                throw .invalid("header '\(header.name)' is set by the proxy itself and cannot be attached")
            }
        }
    }

    static let reservedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "range", "if-range", "upgrade", "te", "trailer",
        "keep-alive",
    ]
}

/// What a proxied URL points at, as the playlist that named it says.
public enum StreamKind: String, Sendable, Codable, CaseIterable {
    case playlist
    case segment
    /// An encryption key: passed through, never written to disk.
    case key
    /// An initialization section (EXT-X-MAP).
    case map
    /// A low-latency partial segment.
    case part
    case other
    /// A logo or poster: served only when it is a raster image (PNG, JPEG, GIF or WebP by its
    /// first bytes), never as whatever else the origin sends (HTML, SVG).
    case image
}

/// One header attached to a stream.
public struct StreamHeader: Sendable, Equatable, Codable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Makes and checks proxy URLs: `/stream/<nonce>/<sealed payload>/<name>`. The payload (the
/// link as compact JSON: origin URL, headers, kind) is encrypted and authenticated with
/// ChaCha20-Poly1305 under a key derived from the data folder's secret, so a shared proxy URL
/// reveals neither the provider's address nor its credentials, the proxy is never an open relay,
/// and URLs survive restarts.
///
/// The nonce is synthetic (an HMAC of the payload, as in SIV modes): the same link always gives
/// the same URL, so a refreshed playlist names its segments as before and players and caches
/// keep working, while two different links never share a nonce.
public final class StreamLinkSigner: Sendable {
    /// The encryption key, made once: building a `SymmetricKey` per URL was a measurable part of
    /// rewriting a long playlist. `SymmetricKey` is not `Sendable` in this version of swift-crypto;
    /// this one is never mutated, so sharing it is safe.
    nonisolated(unsafe) private let sealKey: SymmetricKey
    /// An HMAC keyed for nonces, already set up: each URL copies it, so the key is not hashed
    /// again for each of a playlist's thousands of URIs. Never mutated, so sharing it is safe.
    nonisolated(unsafe) private let nonceHMAC: HMAC<SHA256>
    /// Recently opened paths, so a player's many range requests skip the decryption and JSON work.
    private let verified = Mutex<VerifiedPaths>(VerifiedPaths())

    /// ChaCha20-Poly1305's nonce and tag sizes.
    static let nonceByteCount = 12
    static let tagByteCount = 16

    /// Opened paths kept in memory, bounded by count and by bytes (paths and links are counted).
    struct VerifiedPaths {
        static let maximumCount = 10_000
        static let maximumBytes = 16 << 20
        var links: [String: StreamLink] = [:]
        var bytes = 0

        mutating func insert(_ link: StreamLink, for path: String) {
            let size =
                path.utf8.count * 2 + link.url.absoluteString.utf8.count
                + link.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            // Clearing everything is the cheapest bound: a miss costs one decryption.
            if links.count >= Self.maximumCount || bytes + size > Self.maximumBytes {
                links.removeAll(keepingCapacity: true)
                bytes = 0
            }
            links[path] = link
            bytes += size
        }
    }

    /// `key` is the data folder's secret; the encryption and nonce keys are derived from it.
    public init(key: SymmetricKey) {
        let sealKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, info: Data("tuner proxy URL payload v2".utf8), outputByteCount: 32)
        let nonceKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, info: Data("tuner proxy URL nonce v2".utf8), outputByteCount: 32)
        self.sealKey = sealKey
        self.nonceHMAC = HMAC<SHA256>(key: nonceKey)
    }

    struct Payload: Codable {
        var u: String
        var h: [[String]]?
        var k: String?
        var p: String?
        var c: Int64?
    }

    /// The path (starting with `/stream/`) of a proxy URL for `link`.
    public func path(for link: StreamLink) throws(StreamError) -> String {
        try link.validate()
        let json = Self.payloadJSON(of: link)
        let nonceBytes = syntheticNonce(of: json)
        let sealed: ChaChaPoly.SealedBox
        do {
            sealed = try ChaChaPoly.seal(json, using: sealKey, nonce: try ChaChaPoly.Nonce(data: nonceBytes))
        } catch {
            throw .invalid("the proxy URL's payload cannot be encrypted: \(error)")
        }
        // `combined` is nonce, ciphertext and tag in one buffer: the URL carries the nonce and the
        // rest in two components, encoded straight from it without copying them apart.
        let combined = sealed.combined
        let (nonceText, bodyText) = combined.withUnsafeBytes { bytes in
            (
                Base64URL.encode(UnsafeRawBufferPointer(rebasing: bytes[..<Self.nonceByteCount])),
                Base64URL.encode(UnsafeRawBufferPointer(rebasing: bytes[Self.nonceByteCount...]))
            )
        }
        return "/stream/\(nonceText)/\(bodyText)/\(Self.lastComponent(of: link.url))"
    }

    /// The payload as compact JSON with sorted keys (`c`, `h`, `k`, `p`, `u`; absent ones left out),
    /// written by hand: a rewritten playlist signs one link per URI, and Foundation's
    /// JSONEncoder cost most of the 30 µs each took. ``verify(signature:payload:)`` decodes it
    /// with JSONDecoder, as it does URLs made before.
    static func payloadJSON(of link: StreamLink) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(64 + link.url.absoluteString.utf8.count * 2)
        json.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            JSONString.append(name, to: &json)
            json.append(UInt8(ascii: ":"))
        }
        if let channel = link.channel {
            key("c")
            json.append(contentsOf: String(channel).utf8)
        }
        if !link.headers.isEmpty {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            appendHeadersMember(link.headers, to: &json)
        }
        if let kind = link.kind {
            key("k")
            JSONString.append(kind.rawValue, to: &json)
        }
        if let playlist = link.playlist {
            key("p")
            JSONString.append(playlist.absoluteString, to: &json)
        }
        key("u")
        JSONString.append(link.url.absoluteString, to: &json)
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// Appends the payload's `"h":[["name","value"],…]` member.
    static func appendHeadersMember(_ headers: [StreamHeader], to json: inout [UInt8]) {
        JSONString.append("h", to: &json)
        json.append(contentsOf: ":[".utf8)
        for (index, header) in headers.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "["))
            JSONString.append(header.name, to: &json)
            json.append(UInt8(ascii: ","))
            JSONString.append(header.value, to: &json)
            json.append(UInt8(ascii: "]"))
        }
        json.append(UInt8(ascii: "]"))
    }

    /// Signs the URIs of one playlist: links that share their headers and playlist and differ in
    /// URL and kind. The JSON around each URL is built once per kind and every path is written
    /// straight into the caller's buffer; the paths are byte for byte those of ``path(for:)``.
    /// A rewritten 40,001-segment playlist spent most of its time in the allocations of the
    /// general path.
    struct PlaylistSigning {
        let signer: StreamLinkSigner
        /// `{"h":[…],` (or `{`): what every payload starts with.
        private let opening: [UInt8]
        /// `,"p":"<playlist>"` for segments, which name their playlist so serving one can
        /// pre-fetch what follows.
        private let playlistMember: [UInt8]
        /// Reused for each payload.
        private var json: [UInt8] = []

        /// Fails when the headers could not be attached to a link (see ``StreamLink/validate()``).
        init(signer: StreamLinkSigner, headers: [StreamHeader], playlist: URL) throws(StreamError) {
            try StreamLink(url: playlist, headers: headers).validate()
            self.signer = signer
            var opening: [UInt8] = [UInt8(ascii: "{")]
            if !headers.isEmpty { StreamLinkSigner.appendHeadersMember(headers, to: &opening) }
            self.opening = opening
            var member: [UInt8] = Array(#","p":"#.utf8)
            JSONString.append(playlist.absoluteString, to: &member)
            self.playlistMember = member
            json.reserveCapacity(256)
        }

        /// Appends the proxy path of `url` (an absolute URI as text, as `HLSRewriter` resolves
        /// it) to `output`; false, having appended nothing, for a URI that is not http(s) (keys may
        /// be `skd://` or `data:` URIs that players handle themselves).
        mutating func appendPath(of url: String, kind: StreamKind, to output: inout [UInt8]) -> Bool {
            let isPlain = HLSRewriter.isPlainHTTPURL(url)
            var parsed: URL?
            if !isPlain {
                guard let url = URL(string: url), let scheme = url.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
                else { return false }
                parsed = url
            }
            json.removeAll(keepingCapacity: true)
            json.append(contentsOf: opening)
            if opening.count > 1 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: #""k":"#.utf8)
            JSONString.append(kind.rawValue, to: &json)
            if kind == .segment { json.append(contentsOf: playlistMember) }
            json.append(contentsOf: #","u":"#.utf8)
            if isPlain {
                // A plain URL holds no quote, backslash or control byte: nothing to escape.
                json.append(UInt8(ascii: "\""))
                json.append(contentsOf: url.utf8)
                json.append(UInt8(ascii: "\""))
            } else {
                JSONString.append(url, to: &json)
            }
            json.append(UInt8(ascii: "}"))
            let last =
                StreamLinkSigner.plainLastComponent(of: url)
                ?? StreamLinkSigner.lastComponent(of: parsed ?? URL(string: url)!)
            return signer.appendPath(payload: json, lastComponent: last, to: &output)
        }
    }

    /// Seals `payload` and appends `/stream/<nonce>/<sealed>/<lastComponent>` to `output`.
    fileprivate func appendPath(payload: [UInt8], lastComponent: String, to output: inout [UInt8]) -> Bool {
        var hmac = nonceHMAC
        hmac.update(data: payload)
        let code = hmac.finalize()
        let sealed: ChaChaPoly.SealedBox
        do {
            let nonce = try code.withUnsafeBytes { bytes in
                try ChaChaPoly.Nonce(data: UnsafeRawBufferPointer(rebasing: bytes[..<Self.nonceByteCount]))
            }
            sealed = try ChaChaPoly.seal(payload, using: sealKey, nonce: nonce)
        } catch {
            return false
        }
        output.append(contentsOf: "/stream/".utf8)
        sealed.combined.withUnsafeBytes { bytes in
            Base64URL.append(UnsafeRawBufferPointer(rebasing: bytes[..<Self.nonceByteCount]), to: &output)
            output.append(UInt8(ascii: "/"))
            Base64URL.append(UnsafeRawBufferPointer(rebasing: bytes[Self.nonceByteCount...]), to: &output)
        }
        output.append(UInt8(ascii: "/"))
        output.append(contentsOf: lastComponent.utf8)
        return true
    }

    /// A complete proxy URL on `baseURL` (like `http://127.0.0.1:8080`).
    public func proxyURL(for link: StreamLink, baseURL: String) throws(StreamError) -> String {
        baseURL + (try path(for: link))
    }

    /// Decrypts and authenticates a proxy URL's two middle components (the nonce and the sealed
    /// payload) and returns its link. Anything not made by this Tuner's secret is `.badSignature`.
    public func verify(signature: some StringProtocol, payload: some StringProtocol) throws(StreamError)
        -> StreamLink
    {
        let cacheKey = "\(signature)/\(payload)"
        if let link = verified.withLock({ $0.links[cacheKey] }) { return link }
        guard let nonceBytes = Data(base64URLEncoded: signature), nonceBytes.count == Self.nonceByteCount,
            let body = Data(base64URLEncoded: payload), body.count >= Self.tagByteCount,
            let nonce = try? ChaChaPoly.Nonce(data: nonceBytes),
            let box = try? ChaChaPoly.SealedBox(
                nonce: nonce, ciphertext: body.prefix(body.count - Self.tagByteCount),
                tag: body.suffix(Self.tagByteCount)),
            let json = try? ChaChaPoly.open(box, using: sealKey)
        else { throw .badSignature }
        guard let decoded = try? JSONDecoder().decode(Payload.self, from: json), let url = URL(string: decoded.u) else {
            throw .invalid("the proxy URL's payload cannot be decoded")
        }
        let pairs: [[String]] = decoded.h ?? []
        let headers: [StreamHeader] = pairs.compactMap { pair -> StreamHeader? in
            guard pair.count == 2 else { return nil }
            return StreamHeader(name: pair[0], value: pair[1])
        }
        let link = StreamLink(
            url: url, headers: headers, kind: decoded.k.flatMap(StreamKind.init(rawValue:)),
            playlist: decoded.p.flatMap(URL.init(string:)), channel: decoded.c)
        try link.validate()
        verified.withLock { $0.insert(link, for: cacheKey) }
        return link
    }

    /// The first 12 bytes of the payload's HMAC: unique per payload, the same for the same one.
    private func syntheticNonce(of json: [UInt8]) -> [UInt8] {
        var hmac = nonceHMAC
        hmac.update(data: json)
        return hmac.finalize().withUnsafeBytes { Array($0.prefix(Self.nonceByteCount)) }
    }

    /// Characters a last path component keeps as they are.
    private static let componentAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#"))

    /// The origin's last path component, kept so players can pick a demuxer by extension.
    static func lastComponent(of url: URL) -> String {
        if let plain = plainLastComponent(of: url.absoluteString) { return plain }
        let last = url.lastPathComponent
        guard !last.isEmpty, last != "/" else { return "index" }
        // Most names need no escaping; checking first skips Foundation's slower path.
        if last.utf8.allSatisfy({ isPlainComponentByte($0) }) { return last }
        return last.addingPercentEncoding(withAllowedCharacters: componentAllowed) ?? "index"
    }

    /// The last path segment of an absolute URL's text when it needs neither decoding nor escaping
    /// (letters, digits and `-._~` only: the usual `segment123.ts`), read straight from the text;
    /// nil for anything else (a trailing slash, escapes, no path), which goes through `URL`.
    static func plainLastComponent(of text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let colon = UInt8(ascii: ":")
            let slash = UInt8(ascii: "/")
            // The scheme: up to the first "://", with no slash, query or fragment before it.
            var index = 0
            while index + 2 < bytes.count,
                !(bytes[index] == colon && bytes[index + 1] == slash && bytes[index + 2] == slash)
            {
                if bytes[index] == slash || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#") {
                    return nil
                }
                index += 1
            }
            guard index + 2 < bytes.count else { return nil }
            // The authority holds no slash: the last slash before the query starts the last segment.
            var end = index + 3
            var lastSlash: Int?
            while end < bytes.count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
                if bytes[end] == slash { lastSlash = end }
                end += 1
            }
            guard let lastSlash, lastSlash + 1 < end else { return nil }
            let last = UnsafeBufferPointer(rebasing: bytes[(lastSlash + 1)..<end])
            // A segment of only dots is not a name: "." and ".." are left to Foundation.
            guard last.allSatisfy(isPlainComponentByte), !last.allSatisfy({ $0 == UInt8(ascii: ".") }) else {
                return nil
            }
            return String(decoding: last, as: UTF8.self)
        }
    }

    /// Letters, digits and `-._~`: safe in a path component whatever the allowed set says.
    static func isPlainComponentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

/// Base64url without padding (RFC 4648 §5), straight from bytes.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { encode($0) }
    }

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out`.
    static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
    }
}
