/// A set of byte offsets kept as sorted, non-overlapping, non-adjacent half-open ranges.
///
/// The cache describes what it holds of a resource with two of these: the bytes written to the
/// data file, and the subset that is synced and recorded in the index.
public struct SpanSet: Sendable, Equatable, CustomStringConvertible {
    /// The ranges, sorted by lower bound; adjacent or overlapping ranges are always merged.
    public private(set) var ranges: [Range<Int64>]

    public init(_ ranges: [Range<Int64>] = []) {
        self.ranges = []
        for range in ranges { insert(range) }
    }

    /// Total number of bytes covered.
    public var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    public var isEmpty: Bool { ranges.isEmpty }

    public var description: String {
        ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    /// Index of the first range whose upper bound is greater than `offset` (binary search).
    private func firstIndex(endingAfter offset: Int64) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound <= offset { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Adds a range, merging it with any range it overlaps or touches.
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound
        var upper = range.upperBound
        // Ranges that end at or after `lower` and start at or before `upper` merge with the new one.
        var first = firstIndex(endingAfter: lower)
        if first > 0 && ranges[first - 1].upperBound == lower { first -= 1 }
        var last = first
        while last < ranges.count && ranges[last].lowerBound <= upper {
            lower = min(lower, ranges[last].lowerBound)
            upper = max(upper, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [lower..<upper])
    }

    /// Removes every offset at or after `offset` (used when a resource turns out shorter).
    public mutating func truncate(at offset: Int64) {
        ranges = ranges.compactMap { range in
            if range.lowerBound >= offset { return nil }
            return range.lowerBound..<min(range.upperBound, offset)
        }
    }

    /// Whether every byte of `range` is held.
    public func contains(_ range: Range<Int64>) -> Bool {
        if range.isEmpty { return true }
        let index = firstIndex(endingAfter: range.lowerBound)
        guard index < ranges.count else { return false }
        return ranges[index].lowerBound <= range.lowerBound && ranges[index].upperBound >= range.upperBound
    }

    /// The number of contiguous bytes held from `offset` on (0 when `offset` is not held).
    public func contiguousCount(from offset: Int64) -> Int64 {
        let index = firstIndex(endingAfter: offset)
        guard index < ranges.count, ranges[index].lowerBound <= offset else { return 0 }
        return ranges[index].upperBound - offset
    }

    /// The first held offset at or after `offset`, if any.
    public func nextHeldOffset(from offset: Int64) -> Int64? {
        let index = firstIndex(endingAfter: offset)
        guard index < ranges.count else { return nil }
        return max(ranges[index].lowerBound, offset)
    }

    /// The parts of `range` that are not held, in order.
    public func gaps(in range: Range<Int64>) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        var cursor = range.lowerBound
        var index = firstIndex(endingAfter: cursor)
        while cursor < range.upperBound {
            if index < ranges.count && ranges[index].lowerBound <= cursor {
                cursor = ranges[index].upperBound
                index += 1
                continue
            }
            let gapEnd = index < ranges.count ? min(ranges[index].lowerBound, range.upperBound) : range.upperBound
            if gapEnd > cursor { result.append(cursor..<gapEnd) }
            cursor = gapEnd
        }
        return result
    }
}
