/// Which live channels keep a time-shift window on disk, and how much of it; read from
/// `TunerConfiguration` (`--timeshift`, `--timeshift-window`, `--timeshift-max-size`).
public struct TimeshiftSettings: Sendable, Equatable {
    /// Which channels keep a window while they play.
    public enum Mode: String, Sendable, CaseIterable {
        /// None (the default: a window writes the whole stream to disk).
        case off
        /// The favourites only.
        case favourites
        /// Every channel that plays.
        case all
    }

    public var mode: Mode = .off
    /// The newest seconds kept of each channel.
    public var windowSeconds: Double = 3600
    /// The bytes kept at most of each channel: the older segments go first.
    public var maxBytes: Int64 = 4 << 30
    /// Free disk left alone: below it the oldest segments go, and nothing is written if none are
    /// left (the cache's `--cache-min-free`).
    public var minimumFreeBytes: Int64 = 256 << 20
    /// How long a segment lasts at least: each starts at the first keyframe after that.
    public var segmentSeconds: Double = 4

    public init() {}

    /// Whether a channel keeps a window while it plays.
    public func keeps(isFavourite: Bool) -> Bool {
        switch mode {
        case .off: false
        case .favourites: isFavourite
        case .all: true
        }
    }
}
