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
    ///
    /// Reads bytes, not Characters: a player sends one on nearly every request, and Foundation's
    /// trimming and splitting cost more than serving a small cached range.
    public init?(headerValue: String) {
        var specs: [ByteRangeSpec] = []
        let parsed =
            headerValue.utf8.withContiguousStorageIfAvailable { Self.parse($0, into: &specs) }
            ?? Array(headerValue.utf8).withUnsafeBufferPointer { Self.parse($0, into: &specs) }
        guard parsed else { return nil }
        self.ranges = specs
    }

    /// `bytes=` (any case, after optional spaces), then comma-separated specs with optional spaces
    /// or tabs around each: `a-b`, `a-` or `-n`, decimal digits only, at most 64 of them.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into specs: inout [ByteRangeSpec]) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: " ") { index += 1 }
        for expected in "bytes=".utf8 {
            guard index < bytes.endIndex else { return false }
            let byte = bytes[index]
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard lowered == expected else { return false }
            index += 1
        }
        while true {
            guard specs.count < 64 else { return false }
            var end = index
            while end < bytes.endIndex, bytes[end] != UInt8(ascii: ",") { end += 1 }
            guard let spec = spec(bytes[index..<end]) else { return false }
            specs.append(spec)
            guard end < bytes.endIndex else { return true }
            index = end + 1
        }
    }

    /// One spec between commas, with its optional white space.
    private static func spec(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> ByteRangeSpec? {
        var start = part.startIndex
        var end = part.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == 0x09 }
        while start < end, isSpace(part[start]) { start += 1 }
        while end > start, isSpace(part[end - 1]) { end -= 1 }
        guard let dash = part[start..<end].firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let first = number(part[start..<dash])
        let last = number(part[(dash + 1)..<end])
        if dash == start {
            guard let count = last else { return nil }
            return .suffix(count)
        }
        guard let first else { return nil }
        if dash + 1 == end { return .from(first) }
        guard let last, last >= first else { return nil }
        return .closed(first, last)
    }

    /// A non-empty run of decimal digits that fits an Int64; nil otherwise (overflow included).
    private static func number(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
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
