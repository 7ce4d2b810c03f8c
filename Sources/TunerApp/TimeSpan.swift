import Foundation

/// Parses human durations such as `24h`, `30m`, `90s`, `1.5h`, `250ms`, `2d` or a bare number of
/// seconds.
public enum TimeSpan {
    /// The number of seconds `text` names, or nil when it is not a duration.
    public static func parseSeconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number >= 0, number.isFinite else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "s": 1, "sec": 1, "ms": 0.001, "m": 60, "min": 60, "h": 3600, "d": 86400,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        return number * multiplier
    }
}
