import Foundation

/// Provider secrets out of a JSON document: every string literal that holds a URL or a
/// `name=value` pair goes through ``SecretRedactor`` (userinfo, `password=`/`token=`… values,
/// Xtream path credentials), and the values of credential headers (`{"name": "Authorization",
/// "value": …}`) are replaced. The API's answers and the live events both go through it, so no
/// model published as it is stored can leak a password.
///
/// Expects compact output with sorted keys (`JSONEncoder`'s `.sortedKeys`), as both encoders
/// make it.
public enum JSONSecretRedactor {
    /// `json` with both passes applied.
    public static func redact(_ json: Data) -> Data {
        redactingCredentialHeaders(redacted(json))
    }

    /// `json` with the secrets in its string literals replaced. Works literal by literal (decoded,
    /// redacted, encoded again), so the document stays valid JSON whatever the strings hold.
    public static func redacted(_ json: Data) -> Data {
        let bytes = [UInt8](json)
        var output: [UInt8] = []
        var copiedUpTo = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            // A string literal: find its closing quote, skipping escaped characters.
            let start = index
            var end = index + 1
            var mayHoldSecret = false
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                let byte = bytes[end]
                if byte == UInt8(ascii: "=") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/") {
                    mayHoldSecret = true
                }
                end += byte == UInt8(ascii: "\\") ? 2 : 1
            }
            guard end < bytes.count else { break }
            if mayHoldSecret, let replacement = redactedLiteral(bytes[start...end]) {
                output.append(contentsOf: bytes[copiedUpTo..<start])
                output.append(contentsOf: replacement)
                copiedUpTo = end + 1
            }
            index = end + 1
        }
        guard copiedUpTo > 0 else { return json }
        output.append(contentsOf: bytes[copiedUpTo...])
        return Data(output)
    }

    /// `json` with the value of every `{"name": "Authorization" | "Cookie" | "Proxy-Authorization",
    /// "value": …}` pair replaced by `REDACTED`: headers a playlist or a transfer carries (a
    /// channel's, a download's), whose values hold no `=`, `@` or `/` for ``redacted(_:)`` to see.
    /// Relies on the encoder's sorted keys and compact output: `"name":"…","value":"…"`.
    public static func redactingCredentialHeaders(_ json: Data) -> Data {
        let bytes = [UInt8](json)
        let nameKey = Array(#""name":""#.utf8)
        let valueKey = Array(#","value":""#.utf8)
        var output: [UInt8] = []
        var copiedUpTo = 0
        var index = 0
        /// The end (closing quote) of the string literal whose first content byte is at `start`.
        func literalEnd(from start: Int) -> Int? {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            return end < bytes.count ? end : nil
        }
        while index + nameKey.count < bytes.count {
            guard bytes[index] == nameKey[0], bytes[index..<(index + nameKey.count)].elementsEqual(nameKey) else {
                index += 1
                continue
            }
            let nameStart = index + nameKey.count
            guard let nameEnd = literalEnd(from: nameStart) else { break }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            let valueKeyStart = nameEnd + 1
            index = valueKeyStart
            guard CredentialHeaders.isCredential(name), valueKeyStart + valueKey.count <= bytes.count,
                bytes[valueKeyStart..<(valueKeyStart + valueKey.count)].elementsEqual(valueKey),
                let valueEnd = literalEnd(from: valueKeyStart + valueKey.count)
            else { continue }
            let valueStart = valueKeyStart + valueKey.count
            output.append(contentsOf: bytes[copiedUpTo..<valueStart])
            output.append(contentsOf: Array(SecretRedactor.placeholder.utf8))
            copiedUpTo = valueEnd
            index = valueEnd
        }
        guard copiedUpTo > 0 else { return json }
        output.append(contentsOf: bytes[copiedUpTo...])
        return Data(output)
    }

    /// The literal (quotes included) redacted and encoded again, or nil when nothing changed.
    private static func redactedLiteral(_ literal: ArraySlice<UInt8>) -> [UInt8]? {
        guard let text = try? JSONDecoder().decode(String.self, from: Data(literal)) else { return nil }
        let cleaned = SecretRedactor.redact(text)
        guard cleaned != text, let encoded = try? literalEncoder.encode(cleaned) else { return nil }
        return [UInt8](encoded)
    }

    private static let literalEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
