/// The playlist-wide attributes of the `#EXTM3U` line: guide URLs, time shift and catch-up defaults.
public struct M3UPlaylistHeader: Sendable, Hashable {
    /// Programme guide (XMLTV) URLs from `x-tvg-url`, `url-tvg` and `tvg-url`, each a comma-separated
    /// list, merged in order with exact duplicates removed.
    public var tvgURLs: [String]
    /// `tvg-shift`: hours to shift every channel's guide by (may be fractional or negative).
    public var tvgShift: String?
    /// `catchup` (or `catchup-type`): the default catch-up mode, such as `default`, `append`,
    /// `shift` or `flussonic`.
    public var catchup: String?
    /// `catchup-days`: how many days back catch-up reaches.
    public var catchupDays: String?
    /// `catchup-source`: the default URL template for catch-up.
    public var catchupSource: String?
    /// Every other attribute, in the order written.
    public var extraAttributes: [M3UAttribute]

    public init(
        tvgURLs: [String] = [],
        tvgShift: String? = nil,
        catchup: String? = nil,
        catchupDays: String? = nil,
        catchupSource: String? = nil,
        extraAttributes: [M3UAttribute] = []
    ) {
        self.tvgURLs = tvgURLs
        self.tvgShift = tvgShift
        self.catchup = catchup
        self.catchupDays = catchupDays
        self.catchupSource = catchupSource
        self.extraAttributes = extraAttributes
    }

    /// `catchup-days` as a number, when it is one.
    public var catchupDayCount: Int? { catchupDays.flatMap { Int($0) } }

    /// `tvg-shift` in hours, when it is a number.
    public var tvgShiftHours: Double? { tvgShift.flatMap { Double($0) } }
}
