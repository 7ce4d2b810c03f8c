/// What a `Range` header asks of a representation of known length (RFC 9110 §14.2).
enum ByteRangeRequest: Equatable {
    /// No usable single range (absent, malformed, another unit, or several ranges): send it all with 200.
    case whole
    /// One satisfiable range, already clamped to the representation: send it with 206.
    case partial(Range<Int>)
    /// A well-formed range that starts past the end (or a zero-length suffix): 416.
    case unsatisfiable

    init(header: String?, length: Int) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = trimmed.dropFirst("bytes=".count).trimmingWhitespace()
        // Multi-range (multipart/byteranges) is allowed to be answered with the whole representation.
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingWhitespace()

        if first.isEmpty {
            guard let suffixLength = Self.number(last) else {
                self = .whole
                return
            }
            if suffixLength == 0 || length == 0 {
                self = .unsatisfiable
            } else {
                self = .partial(max(0, length - suffixLength)..<length)
            }
            return
        }

        guard let start = Self.number(first) else {
            self = .whole
            return
        }
        var end = length - 1
        if !last.isEmpty {
            guard let requestedEnd = Self.number(last), requestedEnd >= start else {
                self = .whole
                return
            }
            end = min(requestedEnd, length - 1)
        }
        self = start < length ? .partial(start..<(end + 1)) : .unsatisfiable
    }

    /// Digits only: `Int("+5")` would accept a sign, which the grammar does not.
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        // Saturate absurd values rather than reject them: `bytes=0-99999999999999999999` is valid.
        return Int(text) ?? Int.max
    }
}
