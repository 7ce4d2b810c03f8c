import Catalog
import Foundation

/// A profile's guide as XMLTV: one `<channel>` per channel, its id the channel's number (as
/// the M3U's `tvg-id` and HDHomeRun's `GuideNumber`), then the programmes of each.
///
/// Written piece by piece (``header()``, ``channels(_:)``, ``programmes(_:of:)``, ``footer()``), so a
/// server streams it without building the document. Channels without programmes get placeholder
/// blocks (their name, an hour each) when `placeholders` is set: Plex hides channels with no guide.
public struct XMLTVOutput: Sendable {
    public var logo: @Sendable (CatalogItem) -> String?
    public var placeholders: Bool

    public init(placeholders: Bool = true, logo: @escaping @Sendable (CatalogItem) -> String?) {
        self.placeholders = placeholders
        self.logo = logo
    }

    public func header() -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE tv SYSTEM "xmltv.dtd">
        <tv generator-info-name="Tuner">

        """
    }

    public func footer() -> String { "</tv>\n" }

    public func channels(_ channels: [OutputChannel]) -> String {
        var text = ""
        for channel in channels {
            text += "  <channel id=\"\(channel.guideID)\">\n"
            text += "    <display-name>\(channel.number)</display-name>\n"
            text += "    <display-name>\(Self.escaped(channel.name))</display-name>\n"
            if let logo = logo(channel.item) { text += "    <icon src=\"\(Self.escaped(logo))\"/>\n" }
            text += "  </channel>\n"
        }
        return text
    }

    /// The programmes of `channel`; placeholders over `window` when it has none (and they are on).
    public func programmes(_ programmes: [GuideProgramme], of channel: OutputChannel, window: Range<Int64>) -> String {
        var text = ""
        if programmes.isEmpty {
            guard placeholders else { return "" }
            var start = window.lowerBound - window.lowerBound % 3600
            while start < window.upperBound {
                text += "  <programme start=\"\(Self.time(start))\" stop=\"\(Self.time(start + 3600))\" "
                text += "channel=\"\(channel.guideID)\">\n"
                text += "    <title>\(Self.escaped(channel.name))</title>\n  </programme>\n"
                start += 3600
            }
            return text
        }
        for programme in programmes {
            text += "  <programme start=\"\(Self.time(programme.start))\" stop=\"\(Self.time(programme.stop))\" "
            text += "channel=\"\(channel.guideID)\">\n"
            text += "    <title>\(Self.escaped(programme.title))</title>\n"
            if let subtitle = programme.subtitle { text += "    <sub-title>\(Self.escaped(subtitle))</sub-title>\n" }
            if let description = programme.description { text += "    <desc>\(Self.escaped(description))</desc>\n" }
            if let category = programme.category { text += "    <category>\(Self.escaped(category))</category>\n" }
            if let icon = programme.icon { text += "    <icon src=\"\(Self.escaped(icon))\"/>\n" }
            if programme.season != nil || programme.episode != nil {
                // xmltv_ns counts from zero: "season . episode . part".
                let season = programme.season.map { String(max($0, 1) - 1) } ?? ""
                let episode = programme.episode.map { String(max($0, 1) - 1) } ?? ""
                text += "    <episode-num system=\"xmltv_ns\">\(season).\(episode).</episode-num>\n"
            }
            text += "  </programme>\n"
        }
        return text
    }

    /// XMLTV's time: `YYYYMMDDhhmmss +0000`, in UTC. Integer arithmetic (Howard Hinnant's
    /// days-to-civil), since a guide writes two per programme; times come from the catalog, which
    /// keeps them within the years 1 to 9999.
    static func time(_ seconds: Int64) -> String {
        let (year, month, day, second) = civil(seconds)
        // Twenty bytes written in place: a guide formats two times per programme.
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int64, _ width: Int, at offset: Int) {
                var rest = max(value, 0)
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 4)
            put(day, 2, at: 6)
            put(second / 3600, 2, at: 8)
            put(second / 60 % 60, 2, at: 10)
            put(second % 60, 2, at: 12)
            for (index, byte) in " +0000".utf8.enumerated() { buffer[14 + index] = byte }
            return 20
        }
    }

    /// Year, month, day and second of the day of `seconds` since 1970 (UTC).
    static func civil(_ seconds: Int64) -> (Int64, Int64, Int64, Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, second)
    }

    static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(max(value, 0))
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Text and attribute values with XML's five specials escaped and the characters XML 1.0
    /// forbids (controls other than tab and line breaks) dropped. Text without any of those (most
    /// titles) is returned as it is.
    public static func escaped(_ text: String) -> String {
        let needsWork = text.utf8.contains { byte in
            switch byte {
            case 0..<0x20, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0xEF: true  // controls " & ' < > and U+FFFx's lead
            default: false
            }
        }
        guard needsWork else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
