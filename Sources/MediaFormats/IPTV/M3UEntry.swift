/// One channel, movie or episode of an IPTV playlist: the `#EXTINF` line, the tags between it and
/// the URL, and the URL with any `|Header=value` suffix split off.
///
/// Attribute values are kept as the playlist wrote them (strings), because providers put
/// surprising things in them; typed views such as ``groups`` or ``isRadio`` are computed.
/// A value of `""` means the attribute was present and empty, `nil` that it was absent.
public struct M3UEntry: Sendable, Hashable {
    /// The stream location without the `|headers` suffix.
    public var url: String
    /// The title: everything after the first comma outside quotes, trimmed.
    public var title: String
    /// Seconds; -1 (live or unknown) when the playlist gave none or an invalid one.
    public var duration: Double

    /// `tvg-id`: the channel's id in the programme guide.
    public var tvgID: String?
    /// `tvg-name`: the channel's name in the programme guide.
    public var tvgName: String?
    /// `tvg-logo` (or `logo`).
    public var tvgLogo: String?
    /// `tvg-url`: a guide URL for this entry alone.
    public var tvgURL: String?
    /// `group-title`, possibly a `;`-separated list; see ``groups``.
    public var groupTitle: String?
    /// `tvg-chno` (or `channel-number`).
    public var channelNumber: String?
    /// `tvg-country`.
    public var tvgCountry: String?
    /// `tvg-language`.
    public var tvgLanguage: String?
    /// `tvg-rec`: days of recordings the provider keeps.
    public var tvgRec: String?
    /// `tvg-shift`: hours to shift this channel's guide by.
    public var tvgShift: String?
    /// `radio`: `"true"` for radio stations; see ``isRadio``.
    public var radio: String?
    /// `catchup` (or `catchup-type`): the catch-up mode.
    public var catchup: String?
    /// `catchup-days`.
    public var catchupDays: String?
    /// `catchup-source`: the catch-up URL template.
    public var catchupSource: String?
    /// `timeshift`: hours of time shift the provider offers.
    public var timeshift: String?
    /// `user-agent` (or `http-user-agent`) attribute.
    public var userAgent: String?
    /// `http-referrer` attribute.
    public var httpReferrer: String?
    /// Every other `#EXTINF` attribute, and repeats of known ones, in the order written.
    public var extraAttributes: [M3UAttribute]

    /// `#EXTGRP`: the group tag, which some players prefer over `group-title`.
    public var extGroup: String?
    /// `#EXTVLCOPT` options in order (`http-user-agent`, `http-referrer`, `http-origin`, …).
    public var vlcOptions: [M3UAttribute]
    /// `#KODIPROP` properties in order (`inputstream.adaptive.license_key`, …).
    public var kodiProperties: [M3UAttribute]
    /// Headers from `#EXTHTTP` JSON objects, in order.
    public var extHTTPHeaders: [M3UAttribute]
    /// Headers from the URL line's `|Name=value&Name2=value2` suffix, percent-decoded.
    public var urlHeaders: [M3UAttribute]
    /// Unrecognised `#EXT…` lines attached to this entry, verbatim, so a rewrite keeps them.
    public var otherTags: [String]

    public init(
        url: String,
        title: String = "",
        duration: Double = -1,
        tvgID: String? = nil,
        tvgName: String? = nil,
        tvgLogo: String? = nil,
        tvgURL: String? = nil,
        groupTitle: String? = nil,
        channelNumber: String? = nil,
        tvgCountry: String? = nil,
        tvgLanguage: String? = nil,
        tvgRec: String? = nil,
        tvgShift: String? = nil,
        radio: String? = nil,
        catchup: String? = nil,
        catchupDays: String? = nil,
        catchupSource: String? = nil,
        timeshift: String? = nil,
        userAgent: String? = nil,
        httpReferrer: String? = nil,
        extraAttributes: [M3UAttribute] = [],
        extGroup: String? = nil,
        vlcOptions: [M3UAttribute] = [],
        kodiProperties: [M3UAttribute] = [],
        extHTTPHeaders: [M3UAttribute] = [],
        urlHeaders: [M3UAttribute] = [],
        otherTags: [String] = []
    ) {
        self.url = url
        self.title = title
        self.duration = duration
        self.tvgID = tvgID
        self.tvgName = tvgName
        self.tvgLogo = tvgLogo
        self.tvgURL = tvgURL
        self.groupTitle = groupTitle
        self.channelNumber = channelNumber
        self.tvgCountry = tvgCountry
        self.tvgLanguage = tvgLanguage
        self.tvgRec = tvgRec
        self.tvgShift = tvgShift
        self.radio = radio
        self.catchup = catchup
        self.catchupDays = catchupDays
        self.catchupSource = catchupSource
        self.timeshift = timeshift
        self.userAgent = userAgent
        self.httpReferrer = httpReferrer
        self.extraAttributes = extraAttributes
        self.extGroup = extGroup
        self.vlcOptions = vlcOptions
        self.kodiProperties = kodiProperties
        self.extHTTPHeaders = extHTTPHeaders
        self.urlHeaders = urlHeaders
        self.otherTags = otherTags
    }
}

extension M3UEntry {
    /// The name to show: the title, or `tvg-name` when the title is empty.
    public var displayName: String {
        title.isEmpty ? (tvgName ?? "") : title
    }

    /// The groups from `group-title` split at `;` (trimmed, empty parts dropped), or `#EXTGRP`
    /// when there is no `group-title`.
    public var groups: [String] {
        if let groupTitle {
            let parts = groupTitle.split(separator: ";").map { M3UText.trimmed($0) }.filter { !$0.isEmpty }
            if !parts.isEmpty { return parts }
        }
        if let extGroup, !extGroup.isEmpty { return [extGroup] }
        return []
    }

    /// Whether `radio` says this is a radio station.
    public var isRadio: Bool {
        guard let radio else { return false }
        return M3UText.equalsIgnoringASCIICase(radio, "true") || radio == "1"
    }

    /// `catchup-days` as a number, when it is one.
    public var catchupDayCount: Int? { catchupDays.flatMap { Int($0) } }

    /// `tvg-shift` in hours, when it is a number.
    public var tvgShiftHours: Double? { tvgShift.flatMap { Double($0) } }

    /// The HTTP headers a player should send for this stream, merged from every place playlists
    /// put them. The most specific source wins when two give the same header: the URL's `|`
    /// suffix, then `#EXTHTTP`, then `#EXTVLCOPT`, then Kodi's `stream_headers`, then the
    /// `#EXTINF` attributes. Well-known names are spelled canonically (`User-Agent`, `Referer`,
    /// `Origin`, `Cookie`).
    public var httpHeaders: [M3UAttribute] {
        var result: [M3UAttribute] = []
        func add(_ name: String, _ value: String) {
            let canonical = M3UText.canonicalHeaderName(name)
            if value.isEmpty || result.contains(where: { M3UText.equalsIgnoringASCIICase($0.name, canonical) }) {
                return
            }
            result.append(M3UAttribute(name: canonical, value: value))
        }
        for header in urlHeaders { add(header.name, header.value) }
        for header in extHTTPHeaders { add(header.name, header.value) }
        for option in vlcOptions {
            // VLC spells headers as options: http-user-agent, http-referrer, http-origin, http-cookie…
            guard option.name.utf8.count > 5, M3UText.hasPrefixIgnoringASCIICase(option.name, "http-") else { continue }
            add(String(option.name.dropFirst(5)), option.value)
        }
        for property in kodiProperties {
            let name = property.name
            if M3UText.equalsIgnoringASCIICase(name, "inputstream.adaptive.stream_headers")
                || M3UText.equalsIgnoringASCIICase(name, "inputstream.adaptive.manifest_headers")
            {
                var ignored: [M3UWarning] = []
                let headers = Array(property.value.utf8).withUnsafeBytes {
                    M3UURLLine.parseHeaders($0, line: 0, warnings: &ignored)
                }
                for header in headers { add(header.name, header.value) }
            }
        }
        if let userAgent { add("User-Agent", userAgent) }
        if let httpReferrer { add("Referer", httpReferrer) }
        if let origin = extraAttributes.m3uValue(named: "http-origin") { add("Origin", origin) }
        return result
    }
}
