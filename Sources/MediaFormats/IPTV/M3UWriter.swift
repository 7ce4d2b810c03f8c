/// Writes IPTV M3U playlists that ``M3UParser`` reads back to the same ``M3UEntry`` values.
///
/// It writes one entry at a time, so a large playlist can be streamed out:
/// `writer.headerLine(header)` once, then `writer.lines(for: entry)` per entry.
public struct M3UWriter: Sendable {
    public init() {}

    /// The whole playlist as text.
    public func string(for playlist: M3UPlaylist) -> String {
        var out = headerLine(playlist.header)
        for entry in playlist.entries {
            out += lines(for: entry)
        }
        return out
    }

    /// The `#EXTM3U` line, with its line break.
    public func headerLine(_ header: M3UPlaylistHeader) -> String {
        var out = "#EXTM3U"
        if !header.tvgURLs.isEmpty {
            appendAttribute("x-tvg-url", header.tvgURLs.joined(separator: ","), to: &out)
        }
        appendAttribute("tvg-shift", header.tvgShift, to: &out)
        appendAttribute("catchup", header.catchup, to: &out)
        appendAttribute("catchup-days", header.catchupDays, to: &out)
        appendAttribute("catchup-source", header.catchupSource, to: &out)
        for attribute in header.extraAttributes {
            appendAttribute(attribute.name, attribute.value, to: &out)
        }
        return out + "\n"
    }

    /// The lines of one entry (`#EXTINF`, its tags, the URL), each with its line break.
    public func lines(for entry: M3UEntry) -> String {
        var out = "#EXTINF:" + Self.durationText(entry.duration)
        appendAttribute("tvg-id", entry.tvgID, to: &out)
        appendAttribute("tvg-name", entry.tvgName, to: &out)
        appendAttribute("tvg-logo", entry.tvgLogo, to: &out)
        appendAttribute("tvg-url", entry.tvgURL, to: &out)
        appendAttribute("tvg-chno", entry.channelNumber, to: &out)
        appendAttribute("tvg-country", entry.tvgCountry, to: &out)
        appendAttribute("tvg-language", entry.tvgLanguage, to: &out)
        appendAttribute("tvg-rec", entry.tvgRec, to: &out)
        appendAttribute("tvg-shift", entry.tvgShift, to: &out)
        appendAttribute("radio", entry.radio, to: &out)
        appendAttribute("timeshift", entry.timeshift, to: &out)
        appendAttribute("catchup", entry.catchup, to: &out)
        appendAttribute("catchup-days", entry.catchupDays, to: &out)
        appendAttribute("catchup-source", entry.catchupSource, to: &out)
        appendAttribute("http-user-agent", entry.userAgent, to: &out)
        appendAttribute("http-referrer", entry.httpReferrer, to: &out)
        appendAttribute("group-title", entry.groupTitle, to: &out)
        for attribute in entry.extraAttributes {
            appendAttribute(attribute.name, attribute.value, to: &out)
        }
        out += "," + Self.singleLine(entry.title) + "\n"

        if let extGroup = entry.extGroup {
            out += "#EXTGRP:" + Self.singleLine(extGroup) + "\n"
        }
        for option in entry.vlcOptions {
            out += "#EXTVLCOPT:" + Self.optionText(option, quoteIfNeeded: true) + "\n"
        }
        for property in entry.kodiProperties {
            out += "#KODIPROP:" + Self.optionText(property, quoteIfNeeded: false) + "\n"
        }
        if !entry.extHTTPHeaders.isEmpty {
            out += "#EXTHTTP:" + M3UHTTPHeadersJSON.serialize(entry.extHTTPHeaders) + "\n"
        }
        for tag in entry.otherTags {
            out += Self.singleLine(tag) + "\n"
        }

        out += Self.singleLine(entry.url)
        if !entry.urlHeaders.isEmpty {
            out +=
                "|"
                + entry.urlHeaders.map { header in
                    Self.singleLine(header.name) + "=" + M3UURLLine.percentEncoded(header.value)
                }.joined(separator: "&")
        }
        return out + "\n"
    }

    private func appendAttribute(_ name: String, _ value: String?, to out: inout String) {
        guard let value else { return }
        let clean = Self.singleLine(value)
        // M3U has no escapes: pick the quote the value does not contain. A value holding both
        // kinds is written with double quotes, which the parser's closing-quote rule still reads
        // back unless an inner `"` is followed by a space or a comma.
        let quote = clean.utf8.contains(UInt8(ascii: "\"")) && !clean.utf8.contains(UInt8(ascii: "'")) ? "'" : "\""
        out += " " + name + "=" + quote + clean + quote
    }

    static func durationText(_ duration: Double) -> String {
        guard duration.isFinite else { return "-1" }
        if duration == duration.rounded(), abs(duration) < 1e15 {
            return String(Int64(duration))
        }
        return String(duration)
    }

    private static func optionText(_ option: M3UAttribute, quoteIfNeeded: Bool) -> String {
        guard !option.value.isEmpty else { return singleLine(option.name) }
        var value = singleLine(option.value)
        if quoteIfNeeded, let first = value.utf8.first, let last = value.utf8.last,
            first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") || last == UInt8(ascii: "\"")
                || last == UInt8(ascii: "'")
                || M3UText.isSpace(first) || M3UText.isSpace(last)
        {
            // The parser strips one pair of matching quotes and trims, so protect values that
            // would otherwise lose characters.
            value = "\"" + value + "\""
        }
        return singleLine(option.name) + "=" + value
    }

    /// Line breaks inside a value would split the entry, and the other control and separator
    /// characters split it for players that read lines as Python or JavaScript do: each run of them
    /// becomes a space (``OutputText/line(_:)``).
    private static func singleLine(_ text: String) -> String {
        OutputText.line(text)
    }
}
