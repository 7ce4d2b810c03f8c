import Foundation

/// The key–value pairs of a tus `Upload-Metadata` header: `key base64value, key2, ...`.
///
/// Values are arbitrary bytes (base64 on the wire) and may be absent; keys are kept in the order
/// the client sent them, so the header reads back exactly as it was given.
public struct TusMetadata: Sendable, Hashable, Codable {
    /// One pair; `value` is nil for a key sent without a value.
    public struct Entry: Sendable, Hashable, Codable {
        public var key: String
        public var value: Data?

        public init(key: String, value: Data?) {
            self.key = key
            self.value = value
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// Pairs of UTF-8 strings, in key order (a dictionary has none of its own).
    public init(_ values: [String: String]) {
        entries = values.sorted { $0.key < $1.key }.map { Entry(key: $0.key, value: Data($0.value.utf8)) }
    }

    /// Parses an `Upload-Metadata` header. Returns nil for a malformed one: a key with spaces or
    /// commas, an empty key, a value that is not base64, or a key given twice.
    public init?(header: String) {
        var entries: [Entry] = []
        var seen = Set<String>()
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard let key = parts.first.map(String.init), !key.isEmpty, parts.count <= 2, seen.insert(key).inserted
            else {
                return nil
            }
            guard key.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "," }) else { return nil }
            if parts.count == 2 {
                guard let value = Data(base64Encoded: String(parts[1])) else { return nil }
                entries.append(Entry(key: key, value: value))
            } else {
                entries.append(Entry(key: key, value: nil))
            }
        }
        self.entries = entries
    }

    /// The header value, `key base64value` pairs separated by commas.
    public var headerValue: String {
        entries.map { entry in
            entry.value.map { "\(entry.key) \($0.base64EncodedString())" } ?? entry.key
        }.joined(separator: ",")
    }

    /// The value of `key` as UTF-8 text, when present and valid UTF-8.
    public subscript(key: String) -> String? {
        guard let data = entries.first(where: { $0.key == key })?.value else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// The file name the client gave, from the keys clients use (`filename` by tus-js-client and
    /// tuspy's examples, `name` by Uppy), reduced to its last path component so it can never
    /// name a path outside the uploads folder. Nil when none was given or nothing safe remains.
    public var filename: String? {
        for key in ["filename", "name", "fileName", "FileName"] {
            guard let raw = self[key] else { continue }
            let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
            let cleaned = String(
                last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
            if !cleaned.isEmpty, cleaned != ".", cleaned != ".." { return cleaned }
        }
        return nil
    }
}
