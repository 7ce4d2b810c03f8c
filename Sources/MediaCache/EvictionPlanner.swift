import Foundation

/// Chooses what to evict: least recently used first, skipping what is in use or pinned.
/// Pure, so the policy is tested without files.
public enum EvictionPlanner {
    public struct Candidate: Sendable {
        public var key: String
        public var bytes: Int64
        public var lastAccess: Date
        public var inUse: Bool
        public var pinned: Bool

        public init(key: String, bytes: Int64, lastAccess: Date, inUse: Bool, pinned: Bool) {
            self.key = key
            self.bytes = bytes
            self.lastAccess = lastAccess
            self.inUse = inUse
            self.pinned = pinned
        }
    }

    /// Keys to evict, oldest access first, until at least `bytesToFree` bytes are covered (or
    /// nothing evictable is left).
    public static func plan(candidates: [Candidate], bytesToFree: Int64) -> [String] {
        guard bytesToFree > 0 else { return [] }
        var chosen: [String] = []
        var freed: Int64 = 0
        for candidate in candidates.filter({ !$0.inUse && !$0.pinned }).sorted(by: { $0.lastAccess < $1.lastAccess }) {
            if freed >= bytesToFree { break }
            chosen.append(candidate.key)
            freed += candidate.bytes
        }
        return chosen
    }
}
