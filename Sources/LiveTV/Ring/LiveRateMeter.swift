/// Bytes per second over the last few whole seconds, for the streams list.
struct LiveRateMeter {
    private var buckets: [(second: Int64, bytes: Int64)] = []
    private(set) var total: Int64 = 0

    mutating func add(_ bytes: Int, at now: ContinuousClock.Instant) {
        total &+= Int64(bytes)
        let second = Self.second(now)
        if let last = buckets.last, last.second == second {
            buckets[buckets.count - 1].bytes &+= Int64(bytes)
        } else {
            buckets.append((second, Int64(bytes)))
            if buckets.count > 6 { buckets.removeFirst(buckets.count - 6) }
        }
    }

    /// The average over the last complete seconds (up to five).
    func rate(at now: ContinuousClock.Instant) -> Int64 {
        let current = Self.second(now)
        guard let first = buckets.first?.second else { return 0 }
        let span = min(5, current - first)
        guard span > 0 else { return 0 }
        let bytes = buckets.filter { $0.second < current && $0.second >= current - span }.reduce(0) { $0 &+ $1.bytes }
        return bytes / span
    }

    static func second(_ instant: ContinuousClock.Instant) -> Int64 {
        LiveRateMeter.epoch.duration(to: instant).components.seconds
    }

    static let epoch = ContinuousClock.now
}
