/// How a profile orders and numbers its channels.
///
/// A number, once given to a channel (by identity), stays with it: refreshes, new channels and
/// channels that leave and come back never move it. New channels take the lowest free number
/// from `start` up, in the order `order` says.
public struct OutputNumbering: Sendable, Codable, Hashable {
    /// The order new channels are numbered in and the output lists channels in.
    public enum Order: String, Sendable, Codable, CaseIterable {
        /// As the playlists list them (source by source).
        case playlist
        /// Favourites first, in the user's favourites order, then the rest as in `playlist`.
        case favourites
        /// By name.
        case name
    }

    /// The first number given.
    public var start: Int
    public var order: Order
    /// Give a channel the playlist's own number (`tvg-chno`) when it is a whole number that is
    /// still free.
    public var keepPlaylistNumbers: Bool

    public init(start: Int = 1, order: Order = .playlist, keepPlaylistNumbers: Bool = false) {
        self.start = start
        self.order = order
        self.keepPlaylistNumbers = keepPlaylistNumbers
    }

    /// The highest number a channel can get (HDHomeRun players and the schema agree on six digits).
    public static let highest = 999_999

    /// Numbers for `channels` (in output order): existing ones kept, new ones given. Returns each
    /// channel's number (nil for channels beyond the last free number, left out of the outputs),
    /// in the order given, and the new assignments to record.
    public func assign(
        _ channels: [(key: OutputChannelKey, playlistNumber: String?)], existing: [OutputChannelKey: Int]
    ) -> (numbers: [Int?], added: [OutputChannelKey: Int]) {
        var numbers = channels.map { existing[$0.key] }
        // Usually every channel has its number: then no set of taken numbers is needed at all.
        guard numbers.contains(nil) else { return (numbers, [:]) }
        var taken = Set(existing.values)
        var added: [OutputChannelKey: Int] = [:]
        var next = max(1, min(start, Self.highest))
        for (index, channel) in channels.enumerated() where numbers[index] == nil {
            if keepPlaylistNumbers, let text = channel.playlistNumber, let wanted = Int(text),
                (1...Self.highest).contains(wanted), !taken.contains(wanted)
            {
                taken.insert(wanted)
                numbers[index] = wanted
                added[channel.key] = wanted
                continue
            }
            while next <= Self.highest && taken.contains(next) { next += 1 }
            guard next <= Self.highest else { continue }
            taken.insert(next)
            numbers[index] = next
            added[channel.key] = next
        }
        return (numbers, added)
    }
}

/// A catalog entry as outputs key it: by kind and identity, which survive refreshes.
public struct OutputChannelKey: Sendable, Hashable, Codable {
    public var kind: String
    public var identity: String

    public init(kind: String, identity: String) {
        self.kind = kind
        self.identity = identity
    }
}
