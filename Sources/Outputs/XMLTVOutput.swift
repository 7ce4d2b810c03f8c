import Catalog
import Foundation
import MediaFormats

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

    /// XMLTV's time in UTC: `YYYYMMDDhhmmss +0000`, as MediaFormats writes guide times.
    static func time(_ seconds: Int64) -> String {
        XMLTVDate(secondsSince1970: seconds).description
    }

    /// Text and attribute values on one line (``OutputText/line(_:)``: line breaks, C0 and C1
    /// controls, U+2028/U+2029 as a space, since `tv_validate_file` refuses NEL and XML 1.0 most
    /// C0), with XML's five specials escaped and U+FFFE/U+FFFF (also not XML) dropped. Text
    /// without any of those (most titles) is returned as it is.
    public static func escaped(_ text: String) -> String {
        let text = OutputText.line(text)
        let needsWork = text.utf8.contains { byte in
            switch byte {
            case 0x22, 0x26, 0x27, 0x3C, 0x3E, 0xEF: true  // " & ' < > and U+FFFx's lead
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
            case "\u{FFFE}", "\u{FFFF}": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
