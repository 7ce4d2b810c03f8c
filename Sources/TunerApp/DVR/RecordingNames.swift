import Foundation

/// Where a recording's files go under the recordings folder, named from the guide the way media
/// servers read them: `Title/Title - S01E02 - 2026-11-27 2000.ts` (a second part adds
/// ` (part 2)`). Names come from the provider's guide, so they are made safe: no path
/// separators, no dots at the start, nothing but printable characters, bounded length.
enum RecordingNames {
    static func relativePath(
        title: String, season: Int?, episode: Int?, start: Int64, part: Int, fileExtension: String,
        timeZone: TimeZone = .current
    ) -> String {
        let folder = safe(title)
        var name = folder
        if let season, let episode {
            name += " - S" + twoDigits(season) + "E" + twoDigits(episode)
        } else if let episode {
            name += " - E" + twoDigits(episode)
        }
        name += " - " + stamp(start, timeZone: timeZone)
        if part > 1 { name += " (part \(part))" }
        return folder + "/" + name + "." + fileExtension
    }

    /// `2026-11-27 2000` in `timeZone`.
    static func stamp(_ seconds: Int64, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return "\(parts.year ?? 1970)-" + twoDigits(parts.month ?? 1) + "-" + twoDigits(parts.day ?? 1) + " "
            + twoDigits(parts.hour ?? 0) + twoDigits(parts.minute ?? 0)
    }

    static func twoDigits(_ value: Int) -> String { value >= 0 && value < 10 ? "0\(value)" : "\(value)" }

    /// A title as one path component: separators, control characters and characters Windows
    /// shares refuse become spaces; leading dots and spaces go; at most 80 characters.
    static func safe(_ title: String) -> String {
        let refused = Set("/\\:*?\"<>|")
        var text = String(
            title.unicodeScalars.map { scalar -> Character in
                let character = Character(scalar)
                return scalar.properties.generalCategory == .control || refused.contains(character) ? " " : character
            })
        text = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        while text.hasPrefix(".") || text.hasPrefix(" ") { text.removeFirst() }
        text = String(text.prefix(80)).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? "Recording" : text
    }
}
