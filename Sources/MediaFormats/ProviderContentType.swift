/// The one rule for the `Content-Type` of an answer that carries bytes from a provider or an
/// origin (the stream proxy, live relays, the outputs' and Xtream's stream paths, logos).
///
/// Such bytes are served on Tuner's own origin, where a signed-in owner's cookie works: an HTML
/// or SVG "stream" opened in a browser could run a script that uses the owner's session. So a
/// type passes only when browsers never run it as a document: video, audio, HLS and DASH
/// manifests, MPEG-TS, MP4, text subtitles, raster images, and the cache's `multipart/byteranges`.
/// Anything else (HTML, SVG, XML, script, JSON, unknown, missing, or a value with a list in it)
/// goes out as
/// ``fallback`` with `Content-Disposition: attachment`, and every such answer also gets
/// ``noSniff`` and ``sandboxPolicy``, which make even a document an opaque origin with nothing
/// allowed. Logos are stricter still: ``rasterImage(contentType:firstBytes:)``.
public enum ProviderContentType {
    /// What a type that does not pass becomes.
    public static let fallback = "application/octet-stream"
    /// `Content-Disposition` for a type that does not pass.
    public static let attachment = "attachment"
    /// `X-Content-Type-Options`: browsers keep to the type given, never a sniffed one.
    public static let noSniff = "nosniff"
    /// `Content-Security-Policy`: a document opened anyway is an opaque origin with no script, no
    /// fetch and no sub-resource.
    public static let sandboxPolicy = "sandbox; default-src 'none'"

    /// Types (essence, lower case) that pass besides `video/*` and `audio/*`.
    static let allowed: [StaticString] = [
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "application/dash+xml", "application/mp4",
        "text/vtt", "application/x-subrip", "text/plain", "image/png", "image/jpeg", "image/gif", "image/webp",
        // Tuner's own framing of several ranges of a file (each part keeps the origin's type inside).
        "multipart/byteranges",
    ]

    /// Whether a `Content-Type` value may pass as it is.
    public static func passes(_ value: String) -> Bool {
        passes(bytes: value.utf8)
    }

    /// Whether a `Content-Type` value, as bytes, may pass as it is: `type/subtype` of token
    /// characters, optional white space, then nothing or parameters of visible ASCII without a
    /// comma (browsers read a comma as a list and take its last type).
    public static func passes(bytes value: some Collection<UInt8>) -> Bool {
        guard let essence = essence(of: value) else { return false }
        if essence.slash == 5, startsCaseless(value, at: essence.start, with: "video/") { return true }
        if essence.slash == 5, startsCaseless(value, at: essence.start, with: "audio/") { return true }
        return allowed.contains { equalsCaseless(value, essence.start, essence.end, $0) }
    }

    /// The raster image type of a logo or poster from its upstream type and its first bytes, or
    /// nil when it is not one (HTML, SVG, XML or anything else is refused, whatever its type
    /// says). The bytes decide the type served; the upstream type must not name another kind of
    /// content (an `image/…` raster type, `application/octet-stream` or none at all may).
    public static func rasterImage(contentType: String?, firstBytes: some Collection<UInt8>) -> String? {
        if let contentType {
            let value = contentType.utf8
            guard let essence = essence(of: value) else { return nil }
            let rasterTypes: [StaticString] = [
                "image/png", "image/jpeg", "image/jpg", "image/pjpeg", "image/gif", "image/webp",
                "application/octet-stream",
            ]
            guard rasterTypes.contains(where: { equalsCaseless(value, essence.start, essence.end, $0) }) else {
                return nil
            }
        }
        let head = Array(firstBytes.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if head.count == 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }

    /// The bounds of `type/subtype` in `value` (offsets from its start) and the slash's offset,
    /// or nil when the value is not of the accepted form.
    private static func essence(of value: some Collection<UInt8>) -> (start: Int, end: Int, slash: Int)? {
        var offset = 0
        var start: Int?
        var slash: Int?
        var end: Int?
        var inParameters = false
        for byte in value {
            defer { offset += 1 }
            if inParameters {
                // Visible ASCII, space and tab; no comma, which would start a list of types.
                guard (0x20...0x7E).contains(byte) || byte == 0x09, byte != UInt8(ascii: ",") else { return nil }
                continue
            }
            let isSpace = byte == UInt8(ascii: " ") || byte == 0x09
            if start == nil {
                if isSpace { continue }
                guard HTTPToken.isTokenByte(byte) else { return nil }
                start = offset
            } else if end == nil {
                if HTTPToken.isTokenByte(byte) { continue }
                if byte == UInt8(ascii: "/"), slash == nil {
                    slash = offset
                    continue
                }
                end = offset
                if isSpace { continue }
                guard byte == UInt8(ascii: ";") else { return nil }
                inParameters = true
            } else {
                if isSpace { continue }
                guard byte == UInt8(ascii: ";") else { return nil }
                inParameters = true
            }
        }
        guard let start, let slash else { return nil }
        let last = end ?? offset
        // A type and a subtype, both non-empty.
        guard slash > start, last > slash + 1 else { return nil }
        return (start, last, slash - start)
    }

    private static func startsCaseless(_ value: some Collection<UInt8>, at start: Int, with prefix: StaticString)
        -> Bool
    {
        prefix.withUTF8Buffer { wanted in
            let bytes = value.dropFirst(start)
            guard bytes.count >= wanted.count else { return false }
            return zip(bytes, wanted).allSatisfy { lowered($0) == $1 }
        }
    }

    private static func equalsCaseless(_ value: some Collection<UInt8>, _ start: Int, _ end: Int, _ text: StaticString)
        -> Bool
    {
        guard end - start == text.utf8CodeUnitCount else { return false }
        return startsCaseless(value, at: start, with: text)
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
