import Foundation

/// Parses human durations such as `90`, `250ms`, `30s`, `15m`, `6h`, `1.5d` into seconds (the
/// serve flags and environment variables that take a duration).
public enum DurationText {
    /// The seconds `text` names (a bare number is seconds), or nil when it is not a duration.
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number >= 0, number.isFinite else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "s": 1, "sec": 1, "ms": 0.001, "m": 60, "min": 60, "h": 3600, "d": 86_400,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        return number * multiplier
    }
}
