import Foundation
import Synchronization

/// The rule for locations a provider names (a playlist's guide URLs, catch-up templates, logos):
/// http(s) only. Local files come only from what the user typed; a provider that names
/// `/etc/hostname`, `/dev/zero` or `file:///…` is refused, never opened.
public enum ProviderLocation {
    /// An absolute http or https URL.
    public static func isHTTP(_ location: String) -> Bool {
        let lower = location.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        let rest = lower.drop(while: { $0 != "/" }).dropFirst(2)
        return !rest.isEmpty && rest.first != "/"
    }

    /// Whether `location` starts with a URL scheme (`file:`, `ftp:`), which a relative part
    /// appended to a stream URL never does.
    static func hasScheme(_ location: String) -> Bool {
        guard let colon = location.firstIndex(of: ":"), colon != location.startIndex else { return false }
        let scheme = location[..<colon]
        return scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}

/// What an import refused among the locations a provider named, kept for the source's status.
/// Filled on the parsing thread and read by the async caller afterwards.
final class RefusedLocations: Sendable {
    private struct State {
        var count = 0
        var examples: [String] = []
        var examplesByRole: [String: Int] = [:]
    }
    private let state = Mutex(State())

    /// Notes `locations` refused as `role` ("guide", "catch-up template", "logo").
    func record(_ locations: [String], as role: String) {
        guard !locations.isEmpty else { return }
        state.withLock { state in
            state.count += locations.count
            // A few of each role, so a long list of logos does not hide the guide.
            for location in locations where state.examplesByRole[role, default: 0] < 3 {
                state.examplesByRole[role, default: 0] += 1
                state.examples.append("\(role) '\(Self.shown(location))'")
            }
        }
    }

    /// One line for the source's status, or nil when nothing was refused.
    var summary: String? {
        let (count, examples) = state.withLock { ($0.count, $0.examples) }
        guard count > 0 else { return nil }
        let more = count > examples.count ? ", …" : ""
        return """
            refused \(count) location\(count == 1 ? "" : "s") the provider named that \
            \(count == 1 ? "is" : "are") not http(s) (\(examples.joined(separator: ", "))\(more)); \
            Tuner reads local files only when you name them
            """
    }

    /// The location as the status shows it: short, without control characters or credentials.
    private static func shown(_ location: String) -> String {
        var text = String(location.unicodeScalars.filter { !$0.properties.isNoncharacterCodePoint }.map(Character.init))
        text = String(
            text.filter { !($0.unicodeScalars.first.map { CharacterSet.controlCharacters.contains($0) } ?? false) })
        if let separator = text.range(of: "://"), let at = text[separator.upperBound...].firstIndex(of: "@") {
            text.replaceSubrange(separator.upperBound...at, with: "…@")
        }
        return text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
