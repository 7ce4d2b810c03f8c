import MediaFormats

/// Builds the URL of a past programme from a channel's catch-up settings, following the
/// conventions of Kodi's IPTV Simple client that providers write playlists for.
///
/// Pure: every time is passed in (seconds since 1970, UTC), so it is tested without a clock.
///
/// Placeholders in `catchup-source`: `{utc}` and `${start}` (start), `{utcend}` and `${end}`,
/// `{lutc}`, `${now}` and `${timestamp}` (now), `{Y}{m}{d}{H}{M}{S}` (start, UTC),
/// `{duration}` (seconds; `{duration:60}` divides by 60), `{offset}` (seconds from start to
/// now; `{offset:60}` divides), `{catchup-id}` (the guide's programme id).
public enum CatchupURLBuilder {
    /// What to build the URL for.
    public struct Request: Sendable, Hashable {
        /// The channel's live stream URL.
        public var streamURL: String
        public var catchup: CatalogCatchup
        public var start: Int64
        public var end: Int64
        public var now: Int64
        /// The programme's `catchup-id` from the guide.
        public var catchupID: String?

        public init(
            streamURL: String, catchup: CatalogCatchup, start: Int64, end: Int64, now: Int64, catchupID: String? = nil
        ) {
            self.streamURL = streamURL
            self.catchup = catchup
            self.start = start
            self.end = end
            self.now = now
            self.catchupID = catchupID
        }
    }

    /// The catch-up URL, or `nil` when the settings cannot produce one (an unknown type without
    /// a template, or a Flussonic/Xtream URL of an unrecognised shape), or when it would not be an
    /// http(s) URL: the template comes from the provider, which never names a local file.
    public static func url(for request: Request) -> String? {
        guard let url = anyURL(for: request), ProviderLocation.isHTTP(url) else { return nil }
        return url
    }

    private static func anyURL(for request: Request) -> String? {
        // Times outside years 1-9999 are no programme; bounding them keeps the arithmetic below exact.
        guard GuideTime.supported.contains(request.start), GuideTime.supported.contains(request.end),
            GuideTime.supported.contains(request.now)
        else { return nil }
        let type = request.catchup.type.lowercased()
        switch type {
        case "append":
            guard let template = request.catchup.source, !template.isEmpty else { return nil }
            return request.streamURL + fill(template, request)
        case "shift", "timeshift":
            let separator = request.streamURL.contains("?") ? "&" : "?"
            return request.streamURL + separator + "utc=\(request.start)&lutc=\(request.now)"
        case "flussonic", "flussonic-hls", "flussonic-ts", "fs":
            if let template = request.catchup.source, !template.isEmpty { return fill(template, request) }
            return flussonic(request)
        case "xc":
            if let template = request.catchup.source, !template.isEmpty { return fill(template, request) }
            return xtream(request)
        default:
            // `default` and unknown types: the template is the whole URL.
            guard let template = request.catchup.source, !template.isEmpty else { return nil }
            if ProviderLocation.isHTTP(template) {
                return fill(template, request)
            }
            // A relative template is appended, as players do.
            return request.streamURL + fill(template, request)
        }
    }

    /// Replaces every placeholder of `template`. Times outside `GuideTime.supported` are moved
    /// to its edge first, so no difference or date computed here can overflow.
    public static func fill(_ template: String, _ request: Request) -> String {
        var request = request
        request.start = GuideTime.clamped(request.start)
        request.end = GuideTime.clamped(request.end)
        request.now = GuideTime.clamped(request.now)
        let duration = max(0, request.end - request.start)
        let offset = max(0, request.now - request.start)
        let parts = utcParts(request.start)
        var output = ""
        var index = template.startIndex
        while index < template.endIndex {
            let character = template[index]
            let opensDollar =
                character == "$" && template.index(after: index) < template.endIndex
                && template[template.index(after: index)] == "{"
            guard character == "{" || opensDollar else {
                output.append(character)
                index = template.index(after: index)
                continue
            }
            let braceIndex = opensDollar ? template.index(after: index) : index
            guard let close = template[braceIndex...].firstIndex(of: "}") else {
                output.append(contentsOf: template[index...])
                break
            }
            let name = String(template[template.index(after: braceIndex)..<close])
            if let value = value(of: name, request: request, duration: duration, offset: offset, parts: parts) {
                output += value
            } else {
                output += template[index...close]
            }
            index = template.index(after: close)
        }
        return output
    }

    private static func value(
        of placeholder: String, request: Request, duration: Int64, offset: Int64, parts: [String: String]
    ) -> String? {
        let pieces = placeholder.split(separator: ":", maxSplits: 1).map(String.init)
        let name = pieces.first ?? ""
        let divisor = pieces.count > 1 ? Int64(pieces[1]).flatMap { $0 > 0 ? $0 : nil } : nil
        switch name {
        case "utc", "start", "timestamp_start": return String(request.start)
        case "utcend", "end": return String(request.end)
        case "lutc", "now", "timestamp": return String(request.now)
        case "duration": return String(duration / (divisor ?? 1))
        case "offset": return String(offset / (divisor ?? 1))
        case "catchup-id": return request.catchupID ?? ""
        case "Y", "m", "d", "H", "M", "S": return parts[name]
        default: return nil
        }
    }

    /// Year, month, day, hour, minute and second of `seconds`, in UTC, zero-padded.
    static func utcParts(_ seconds: Int64) -> [String: String] {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        let (civilYear, civilMonth, civilDay) = XMLTVDate.civil(fromDays: days)
        let (year, month, day) = (Int64(civilYear), Int64(civilMonth), Int64(civilDay))
        func pad(_ value: Int64, _ width: Int = 2) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return [
            "Y": pad(year, 4), "m": pad(month), "d": pad(day),
            "H": pad(secondsOfDay / 3600), "M": pad(secondsOfDay / 60 % 60), "S": pad(secondsOfDay % 60),
        ]
    }

    /// `…/channel/index.m3u8` → `…/channel/index-START-DURATION.m3u8` (also `video.m3u8`,
    /// `mono.m3u8`); `…/channel/mpegts` → `…/channel/timeshift_abs-START.ts`.
    static func flussonic(_ request: Request) -> String? {
        let (base, query) = splitQuery(request.streamURL)
        guard let slash = base.lastIndex(of: "/") else { return nil }
        let directory = base[..<slash]
        let file = base[base.index(after: slash)...]
        let duration = max(0, request.end - request.start)
        let rebuilt: String
        if file == "mpegts" || file.hasSuffix(".ts") {
            rebuilt = "\(directory)/timeshift_abs-\(request.start).ts"
        } else if file.hasSuffix(".m3u8") {
            let stem = file.dropLast(5)
            rebuilt = "\(directory)/\(stem)-\(request.start)-\(duration).m3u8"
        } else {
            return nil
        }
        return rebuilt + query
    }

    /// `http://host/live/user/pass/ID.ext` (or without `/live`) →
    /// `http://host/timeshift/user/pass/MINUTES/YYYY-MM-DD:HH-MM/ID.ext`.
    static func xtream(_ request: Request) -> String? {
        let (base, query) = splitQuery(request.streamURL)
        guard let schemeEnd = base.range(of: "://") else { return nil }
        let afterScheme = base[schemeEnd.upperBound...]
        guard let pathStart = afterScheme.firstIndex(of: "/") else { return nil }
        let origin = base[..<pathStart]
        var segments = afterScheme[pathStart...].split(separator: "/").map(String.init)
        if segments.first == "live" { segments.removeFirst() }
        guard segments.count == 3 else { return nil }
        let parts = utcParts(request.start)
        let minutes = max(0, request.end - request.start) / 60
        let stamp = "\(parts["Y"]!)-\(parts["m"]!)-\(parts["d"]!):\(parts["H"]!)-\(parts["M"]!)"
        var id = segments[2]
        if !id.contains(".") { id += ".ts" }
        return "\(origin)/timeshift/\(segments[0])/\(segments[1])/\(minutes)/\(stamp)/\(id)" + query
    }

    private static func splitQuery(_ url: String) -> (Substring, String) {
        guard let mark = url.firstIndex(of: "?") else { return (Substring(url), "") }
        return (url[..<mark], String(url[mark...]))
    }
}
