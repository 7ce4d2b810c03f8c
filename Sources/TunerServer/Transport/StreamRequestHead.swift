import MediaFormats

/// What the stream fast path reads of a `GET` request with no body and no upgrade; each handler
/// fills it from its own request type (``StreamRequestParser`` from the connection's bytes).
///
/// This file and the parser use nothing but the standard library and MediaFormats, so the fuzz
/// package compiles them in as they are (`Fuzz/Sources/TunerFuzz/Linked`).
struct StreamRequestHead {
    /// The request target, as sent.
    var target: String
    /// The `Host` field (swift-http-types' authority), if any.
    var host: String?
    var range: String?
    var ifRange: String?
}

/// The byte classes the fast path reads requests with.
enum StreamRequestBytes {
    /// `/` and RFC 3986's unreserved characters: the bytes of the proxy's own URLs.
    static func isPlainPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// Whether `bytes` are `lowercase` in any case (ASCII): a field's name or value as a string,
    /// or still in the request's bytes.
    static func name(bytes: some Collection<UInt8>, is lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, wanted in
                byte == wanted || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) && byte | 0x20 == wanted
            }
        }
    }
}
