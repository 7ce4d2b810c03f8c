/// A request's target split into its path and decoded query parameters.
struct RequestTarget {
    /// The path as sent, without the query; what `TestOrigin.requests(path:)` counts by.
    let path: String
    /// The query as sent (without `?`), so redirects can pass it on untouched.
    let rawQuery: String?
    /// Percent-decoded parameters; when a name repeats, the last one wins.
    let query: [String: String]

    init(uri: String) {
        let withoutFragment = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.path = String(parts.first ?? "")
        self.rawQuery = parts.count > 1 ? String(parts[1]) : nil

        var query: [String: String] = [:]
        for pair in (rawQuery ?? "").split(separator: "&") {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.percentDecoded(nameAndValue[0])
            query[name] = nameAndValue.count > 1 ? Self.percentDecoded(nameAndValue[1]) : ""
        }
        self.query = query
    }

    /// Decodes `%XX` escapes; a malformed escape is kept as it is, since this server must stay
    /// lenient with whatever a proxy under test sends. `+` stays `+`: URLs passed in `url=` use it literally.
    static func percentDecoded<S: StringProtocol>(_ text: S) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
