/// The times the guide, catch-up and their APIs accept, in seconds since 1970.
///
/// Times come from query strings and guides; bounding them to the years 1 to 9999 keeps every sum
/// and difference of two times (a window's length, "three hours on", "seven days back") far from
/// `Int64`'s limits, so none of that arithmetic can trap.
public enum GuideTime {
    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z.
    public static let supported: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// `time` moved into `supported`, for library calls that must not fail on a wild value.
    public static func clamped(_ time: Int64) -> Int64 {
        min(max(time, supported.lowerBound), supported.upperBound)
    }
}
