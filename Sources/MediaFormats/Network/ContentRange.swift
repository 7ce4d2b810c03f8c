import Foundation

/// A `Content-Range` answer header: `bytes FIRST-LAST/TOTAL` (TOTAL may be `*`), or
/// `bytes */TOTAL` on a 416. Numbers are checked (ASCII digits within `Int64`, `FIRST <= LAST`,
/// `LAST < TOTAL`); anything else does not parse.
public struct ContentRange: Sendable, Equatable {
    /// The first byte of the part sent; nil in `bytes */TOTAL`.
    public var first: Int64?
    /// The last byte of the part sent (inclusive); nil in `bytes */TOTAL`.
    public var last: Int64?
    /// The whole representation's length; nil when the origin sent `*`.
    public var total: Int64?

    public init?(_ header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        total = HeaderNumber.nonNegative(parts[1])
        if parts[1] != "*" && total == nil { return nil }
        if parts[0] != "*" {
            guard let dash = parts[0].firstIndex(of: "-"), let first = HeaderNumber.nonNegative(parts[0][..<dash]),
                let last = HeaderNumber.nonNegative(parts[0][parts[0].index(after: dash)...]), first <= last
            else { return nil }
            // The last byte must lie inside the declared length.
            if let total, last >= total { return nil }
            self.first = first
            self.last = last
        }
    }
}
