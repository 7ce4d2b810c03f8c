/// Removes credentials from URLs and from text that contains URLs, so that provider passwords
/// and tokens never reach an API answer, a log line or an error message.
///
/// What counts as a credential:
/// - the userinfo of a URL (`http://user:pass@host/…`);
/// - the values of query parameters whose names say they are secret (`password`, `username`,
///   `token`, … — see ``secretParameterNames``), wherever such a `name=value` pair appears;
/// - the user and password segments of Xtream Codes stream paths
///   (`/live/USER/PASS/1.ts`, `/movie/…`, `/series/…`, `/timeshift/USER/PASS/…`).
///
/// Each is replaced by ``placeholder``; the rest of the URL is kept, so a message still says which
/// server and which stream it is about. The redactor works on the text itself (no `URL` parsing),
/// so malformed URLs are redacted too, and it never fails.
public enum SecretRedactor {
    /// What a secret is replaced with.
    public static let placeholder = "REDACTED"

    /// Query parameter names (compared without case) whose values are secrets.
    public static let secretParameterNames: Set<String> = [
        "password", "passwd", "pass", "pwd", "username", "user", "login", "token", "access_token",
        "auth", "auth_token", "authorization", "apikey", "api_key", "api-key", "secret", "client_secret",
        "session", "sessionid", "sid", "key_token",
    ]

    /// Path segments after which an Xtream Codes panel puts the user and the password.
    static let xtreamStreamPrefixes: Set<String> = ["live", "movie", "series", "timeshift"]

    /// `url` with its userinfo, secret query values and Xtream path credentials replaced.
    public static func redactURL(_ url: String) -> String {
        var bytes = Array(url.utf8)
        guard redactURLBytes(&bytes) else { return url }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` with every URL in it (anything `scheme://…` up to a space, quote or angle bracket)
    /// redacted as by ``redactURL(_:)``, and every secret `name=value` pair outside URLs too.
    public static func redact(_ text: String) -> String {
        let source = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var changed = false
        var index = 0
        var copiedUpTo = 0
        while index + 2 < source.count {
            guard source[index] == UInt8(ascii: ":"), source[index + 1] == UInt8(ascii: "/"),
                source[index + 2] == UInt8(ascii: "/")
            else {
                index += 1
                continue
            }
            var start = index
            while start > copiedUpTo, isSchemeByte(source[start - 1]) { start -= 1 }
            var end = index + 3
            while end < source.count, !isURLTerminator(source[end]) { end += 1 }
            output.append(contentsOf: redactQueryPairs(source[copiedUpTo..<start], changed: &changed))
            var url = Array(source[start..<end])
            if redactURLBytes(&url) { changed = true }
            output.append(contentsOf: url)
            copiedUpTo = end
            index = end
        }
        output.append(contentsOf: redactQueryPairs(source[copiedUpTo...], changed: &changed))
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    /// Redacts the URL in `bytes` in place (the array may change length).
    /// Returns whether anything was replaced.
    private static func redactURLBytes(_ bytes: inout [UInt8]) -> Bool {
        var changed = false
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        // Scheme and authority.
        var pathStart = 0
        if let schemeEnd = findSchemeSeparator(bytes) {
            let authorityStart = schemeEnd + 3
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !isAuthorityTerminator(bytes[authorityEnd]) { authorityEnd += 1 }
            result.append(contentsOf: bytes[0..<authorityStart])
            if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                result.append(contentsOf: placeholder.utf8)
                result.append(contentsOf: bytes[at..<authorityEnd])
                changed = true
            } else {
                result.append(contentsOf: bytes[authorityStart..<authorityEnd])
            }
            pathStart = authorityEnd
        }
        // Path: Xtream credentials.
        var pathEnd = pathStart
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") {
            pathEnd += 1
        }
        let segments = bytes[pathStart..<pathEnd].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var redactNext = 0
        var pathBytes: [UInt8] = []
        for (offset, segment) in segments.enumerated() {
            if offset > 0 { pathBytes.append(UInt8(ascii: "/")) }
            if redactNext > 0, !segment.isEmpty {
                pathBytes.append(contentsOf: placeholder.utf8)
                redactNext -= 1
                changed = true
                continue
            }
            // `/live/U/P/ID`: only when two segments and a stream id follow.
            if offset + 3 < segments.count {
                let name = String(decoding: segment, as: UTF8.self).lowercased()
                if xtreamStreamPrefixes.contains(name), !segments[offset + 1].isEmpty, !segments[offset + 2].isEmpty {
                    redactNext = 2
                }
            }
            pathBytes.append(contentsOf: segment)
        }
        result.append(contentsOf: pathBytes)
        // Query and fragment.
        let index = pathEnd
        if index < bytes.count {
            var queryChanged = false
            result.append(contentsOf: redactQueryPairs(bytes[index...], changed: &queryChanged))
            if queryChanged { changed = true }
        }
        if changed { bytes = result }
        return changed
    }

    /// Replaces the values of secret `name=value` pairs in `text`. A pair starts after `?`, `&`,
    /// `;`, whitespace, a quote or the start of the text, and its value ends at `&`, `#`,
    /// whitespace, a quote, `;` or the end.
    private static func redactQueryPairs(_ text: ArraySlice<UInt8>, changed: inout Bool) -> [UInt8] {
        guard text.contains(UInt8(ascii: "=")) else { return Array(text) }
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let atPairStart = index == text.startIndex || isPairSeparator(text[index - 1])
            guard atPairStart else {
                output.append(text[index])
                index += 1
                continue
            }
            var nameEnd = index
            while nameEnd < text.endIndex, isParameterNameByte(text[nameEnd]) { nameEnd += 1 }
            guard nameEnd > index, nameEnd < text.endIndex, text[nameEnd] == UInt8(ascii: "="),
                secretParameterNames.contains(String(decoding: text[index..<nameEnd], as: UTF8.self).lowercased())
            else {
                output.append(text[index])
                index += 1
                continue
            }
            output.append(contentsOf: text[index...nameEnd])
            var valueEnd = nameEnd + 1
            while valueEnd < text.endIndex, !isValueTerminator(text[valueEnd]) { valueEnd += 1 }
            if valueEnd > nameEnd + 1 {
                output.append(contentsOf: placeholder.utf8)
                changed = true
            }
            index = valueEnd
        }
        return output
    }

    private static func findSchemeSeparator(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count, isSchemeByte(bytes[index]) { index += 1 }
        guard index > 0, index + 2 < bytes.count, bytes[index] == UInt8(ascii: ":"),
            bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        return index
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    private static func isParameterNameByte(_ byte: UInt8) -> Bool {
        isSchemeByte(byte) || byte == UInt8(ascii: "_")
    }

    private static func isAuthorityTerminator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func isURLTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"):
            return true
        default:
            return false
        }
    }

    private static func isPairSeparator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"),
            UInt8(ascii: "\n"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ","), UInt8(ascii: "("),
            UInt8(ascii: "["), UInt8(ascii: "{"):
            return true
        default:
            return false
        }
    }

    private static func isValueTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"),
            UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ";"), UInt8(ascii: ","),
            UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }
}
