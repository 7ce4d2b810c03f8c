/// RFC 9110's token characters (`tchar`): what an HTTP field name, a media type's type and
/// subtype, and a method are made of. The one test for them: header names a user attaches to a
/// proxy link, the request heads the stream fast path reads off the bytes, the fields it writes,
/// and the `Content-Type` values the provider-bytes rule judges.
public enum HTTPToken {
    /// Whether `byte` is a `tchar`.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            // Spelled out, not looked up in a collection: the fast path checks every byte of
            // every field name of an answer with it.
            return true
        default:
            return false
        }
    }
}
