import Foundation

/// One range of an HTTP `Range: bytes=…` header, before the resource length is known.
public enum ByteRangeSpec: Sendable, Equatable {
    /// `a-b`: from `a` to `b` inclusive.
    case closed(Int64, Int64)
    /// `a-`: from `a` to the end.
    case from(Int64)
    /// `-n`: the last `n` bytes.
    case suffix(Int64)

    /// The half-open range this spec selects in a resource of `length` bytes, or nil when it is
    /// unsatisfiable (RFC 9110 §14.1.2).
    public func resolve(length: Int64) -> Range<Int64>? {
        switch self {
        case .closed(let first, let last):
            guard first >= 0, first < length, first <= last else { return nil }
            // `last` comes from the client and may be Int64.max: clamp before adding one.
            return first..<(min(last, length - 1) + 1)
        case .from(let first):
            guard first >= 0, first < length else { return nil }
            return first..<length
        case .suffix(let count):
            guard count > 0, length > 0 else { return nil }
            return max(0, length - count)..<length
        }
    }

    /// The header value that asks an origin for exactly this range.
    public var headerValue: String {
        switch self {
        case .closed(let first, let last): return "bytes=\(first)-\(last)"
        case .from(let first): return "bytes=\(first)-"
        case .suffix(let count): return "bytes=-\(count)"
        }
    }
}

/// A parsed `Range` request header.
public struct ByteRangeRequest: Sendable, Equatable {
    public var ranges: [ByteRangeSpec]

    public init(ranges: [ByteRangeSpec]) { self.ranges = ranges }

    /// Parses a `Range` header value. Returns nil for anything that is not a well-formed
    /// `bytes=` range set: RFC 9110 says such a header is ignored and the whole resource served.
    public init?(headerValue: String) {
        var value = Substring(headerValue).drop(while: { $0 == " " })
        guard value.lowercased().hasPrefix("bytes=") else { return nil }
        value = value.dropFirst("bytes=".count)
        var specs: [ByteRangeSpec] = []
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let dash = trimmed.firstIndex(of: "-") else { return nil }
            let firstText = trimmed[..<dash]
            let lastText = trimmed[trimmed.index(after: dash)...]
            if firstText.isEmpty {
                guard let count = Int64(lastText), count >= 0, lastText.allSatisfy(\.isASCIIDigit) else { return nil }
                specs.append(.suffix(count))
            } else {
                guard firstText.allSatisfy(\.isASCIIDigit), let first = Int64(firstText) else { return nil }
                if lastText.isEmpty {
                    specs.append(.from(first))
                } else {
                    guard lastText.allSatisfy(\.isASCIIDigit), let last = Int64(lastText), last >= first else {
                        return nil
                    }
                    specs.append(.closed(first, last))
                }
            }
        }
        guard !specs.isEmpty, specs.count <= 64 else { return nil }
        self.ranges = specs
    }

    /// Resolves every spec against `length`, dropping unsatisfiable ones and merging overlaps the
    /// way nginx does, so a hostile header cannot make one response repeat the file many times.
    public func resolve(length: Int64) -> [Range<Int64>] {
        let resolved = ranges.compactMap { $0.resolve(length: length) }
        guard resolved.count > 1 else { return resolved }
        var merged: [Range<Int64>] = []
        for range in resolved {
            if let index = merged.firstIndex(where: {
                $0.overlaps(range) || $0.upperBound == range.lowerBound || range.upperBound == $0.lowerBound
            }) {
                let existing = merged[index]
                merged[index] = min(existing.lowerBound, range.lowerBound)..<max(existing.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
