import Foundation

/// Parses human byte sizes such as `512MiB`, `1GiB`, `1.5G`, `4096`.
public enum ByteCount {
    /// The number of bytes `text` names, or nil when it is not a size. `K`, `M`, `G`, `T` with or
    /// without `iB`/`B` all mean powers of 1024, as people mean them for disk budgets.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number >= 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "k": 1024, "kb": 1024, "kib": 1024,
            "m": 1_048_576, "mb": 1_048_576, "mib": 1_048_576,
            "g": 1_073_741_824, "gb": 1_073_741_824, "gib": 1_073_741_824,
            "t": 1_099_511_627_776, "tb": 1_099_511_627_776, "tib": 1_099_511_627_776,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let value = number * multiplier
        guard value < Double(Int64.max) else { return nil }
        return Int64(value)
    }
}
