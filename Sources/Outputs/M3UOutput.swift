import Catalog
import MediaFormats

/// A profile's channels as an M3U Plus playlist, for TiviMate, VLC and the like: `tvg-id` and
/// `tvg-chno` are the channel's number (the XMLTV output's channel id), every URL is Tuner's.
public struct M3UOutput: Sendable {
    public var links: OutputLinks
    /// The URL players fetch a channel's logo from (through Tuner), or nil to leave it out.
    public var logo: @Sendable (CatalogItem) -> String?

    public init(links: OutputLinks, logo: @escaping @Sendable (CatalogItem) -> String?) {
        self.links = links
        self.logo = logo
    }

    public func header() -> String {
        let guide = OutputText.attribute(links.guide)
        return M3UWriter().headerLine(
            M3UPlaylistHeader(tvgURLs: [guide], extraAttributes: [M3UAttribute(name: "url-tvg", value: guide)]))
    }

    public func lines(for channel: OutputChannel) -> String {
        // Provider text on one line, attributes without `"` (``OutputText``): one entry per channel
        // for every parser, whatever the provider put in a name.
        var entry = M3UEntry(url: OutputText.line(links.play(channel.number)), title: OutputText.line(channel.name))
        entry.tvgID = channel.guideID
        entry.tvgName = OutputText.attribute(channel.name)
        entry.tvgLogo = logo(channel.item).map(OutputText.attribute)
        entry.channelNumber = String(channel.number)
        entry.groupTitle = channel.item.group.map(OutputText.attribute)
        if channel.item.isRadio { entry.radio = "true" }
        if let catchup = channel.item.catchup {
            // Tuner's own catch-up URL, whatever the provider's scheme: players fill in the times.
            entry.catchup = "default"
            entry.catchupDays = catchup.days.map(String.init)
            entry.catchupSource = OutputText.attribute(links.catchup(channel.number))
        }
        return M3UWriter().lines(for: entry)
    }

    /// The whole playlist.
    public func string(for channels: [OutputChannel]) -> String {
        var text = header()
        for channel in channels { text += lines(for: channel) }
        return text
    }
}
