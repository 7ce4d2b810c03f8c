import Foundation
import MediaFormats

/// A profile as an HDHomeRun network tuner (model HDTC-2US), in the shapes Plex, Jellyfin and
/// Emby read: `discover.json`, `lineup.json` (also as `lineup.xml` and `lineup.m3u`),
/// `lineup_status.json` and UPnP's `device.xml`.
public struct HDHomeRunDevice: Sendable {
    public var profile: OutputProfile
    public var links: OutputLinks

    public init(profile: OutputProfile, links: OutputLinks) {
        self.profile = profile
        self.links = links
    }

    public var deviceID: String { HDHomeRunDeviceID.text(profile.deviceID) }

    /// `discover.json`.
    public struct Discover: Codable, Sendable, Equatable {
        public var FriendlyName: String
        public var ModelNumber: String
        public var FirmwareName: String
        public var FirmwareVersion: String
        public var DeviceID: String
        public var DeviceAuth: String
        public var BaseURL: String
        public var LineupURL: String
        public var TunerCount: Int
    }

    public var discover: Discover {
        Discover(
            FriendlyName: OutputText.line(profile.name), ModelNumber: "HDTC-2US", FirmwareName: "hdhomeruntc_atsc",
            FirmwareVersion: "20200101", DeviceID: deviceID, DeviceAuth: deviceAuth,
            BaseURL: OutputText.line(links.deviceBase), LineupURL: OutputText.line(links.deviceBase + "/lineup.json"),
            TunerCount: profile.streamLimit)
    }

    /// A value real tuners send for their cloud guide; players only pass it on. Derived from
    /// the id so it is stable and says nothing of the access key.
    public var deviceAuth: String { "tuner" + deviceID.lowercased() }

    /// One entry of `lineup.json`.
    public struct LineupEntry: Codable, Sendable, Equatable {
        public var GuideNumber: String
        public var GuideName: String
        public var URL: String
        public var HD: Int
        public var Favorite: Int
    }

    public func lineup(_ channels: [OutputChannel]) -> [LineupEntry] {
        channels.map { channel in
            LineupEntry(
                GuideNumber: String(channel.number), GuideName: OutputText.line(channel.name),
                URL: OutputText.line(links.play(channel.number)),
                HD: Self.looksHD(channel.name) ? 1 : 0, Favorite: channel.item.isFavourite ? 1 : 0)
        }
    }

    /// `lineup.json` as text, written directly: Foundation's encoder boxes every value and is the
    /// larger part of a 10,000-channel lineup's cost. Names and URLs pass ``OutputText`` first:
    /// JSON escapes C0 itself, but C1 and U+2028/U+2029 would reach players that split lines.
    public func lineupJSON(_ channels: [OutputChannel]) -> String {
        var text = "["
        text.reserveCapacity(channels.count * 120)
        for (index, channel) in channels.enumerated() {
            if index > 0 { text += "," }
            text += "{\"GuideNumber\":\"\(channel.number)\",\"GuideName\":"
            JSONString.append(OutputText.line(channel.name), to: &text)
            text += ",\"URL\":"
            JSONString.append(OutputText.line(links.play(channel.number)), to: &text)
            text += ",\"HD\":\(Self.looksHD(channel.name) ? 1 : 0),\"Favorite\":\(channel.item.isFavourite ? 1 : 0)}"
        }
        return text + "]"
    }

    /// `lineup.xml`, the XML form of `lineup.json` that real devices also serve: one `<Program>`
    /// per channel, in the same order, with the same keyed URLs.
    public func lineupXML(_ channels: [OutputChannel]) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Lineup>\n"
        text.reserveCapacity(channels.count * 160)
        for channel in channels {
            text += "<Program><GuideNumber>\(channel.number)</GuideNumber>"
            text += "<GuideName>\(XMLTVOutput.escaped(channel.name))</GuideName>"
            text += "<URL>\(XMLTVOutput.escaped(links.play(channel.number)))</URL>"
            text += "<HD>\(Self.looksHD(channel.name) ? 1 : 0)</HD>"
            text += "<Favorite>\(channel.item.isFavourite ? 1 : 0)</Favorite></Program>\n"
        }
        return text + "</Lineup>\n"
    }

    /// `lineup.m3u`, as real devices list their channels for VLC and the like: one entry per
    /// channel, `tvg-chno` the GuideNumber, `tvg-id` the XMLTV output's channel id.
    public func lineupM3U(_ channels: [OutputChannel]) -> String {
        let writer = M3UWriter()
        var text = writer.headerLine(M3UPlaylistHeader())
        for channel in channels {
            // Names and URLs on one line and attributes without `"` (``OutputText``): one entry
            // per channel for every parser, whatever the provider put in a name.
            var entry = M3UEntry(url: OutputText.line(links.play(channel.number)), title: OutputText.line(channel.name))
            entry.tvgID = channel.guideID
            entry.tvgName = OutputText.attribute(channel.name)
            entry.channelNumber = String(channel.number)
            text += writer.lines(for: entry)
        }
        return text
    }

    /// `lineup_status.json`: never scanning (the lineup comes from the playlists).
    public struct LineupStatus: Codable, Sendable, Equatable {
        public var ScanInProgress: Int
        public var ScanPossible: Int
        public var Source: String
        public var SourceList: [String]
    }

    public static let lineupStatus = LineupStatus(
        ScanInProgress: 0, ScanPossible: 1, Source: "Cable", SourceList: ["Cable"])

    /// UPnP's device description, for players that find tuners by SSDP.
    public var deviceXML: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <root xmlns="urn:schemas-upnp-org:device-1-0">
          <specVersion><major>1</major><minor>0</minor></specVersion>
          <URLBase>\(XMLTVOutput.escaped(links.deviceBase))</URLBase>
          <device>
            <deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType>
            <friendlyName>\(XMLTVOutput.escaped(profile.name))</friendlyName>
            <manufacturer>Silicondust</manufacturer>
            <modelName>HDTC-2US</modelName>
            <modelNumber>HDTC-2US</modelNumber>
            <serialNumber>\(deviceID)</serialNumber>
            <UDN>uuid:\(uuid)</UDN>
          </device>
        </root>

        """
    }

    /// A UUID derived from the device id, stable across restarts.
    public var uuid: String {
        let id = deviceID.lowercased()
        return "\(id)-0000-4000-8000-\(id)0000"
    }

    /// The words of ``looksHD(_:)``, each packed big-endian into an integer.
    static let hdWords: [UInt32] = ["HD", "FHD", "UHD", "4K", "1080", "720"].map { word in
        word.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Whether a name says HD (a word `HD`, `FHD`, `UHD`, `4K`, `1080`, `720`, in any case).
    /// Byte by byte, each word packed into an integer: this runs for every channel of every
    /// lineup read.
    static func looksHD(_ name: String) -> Bool {
        let words = hdWords
        var word: UInt32 = 0
        var length = 0
        func isHD() -> Bool { length > 0 && length <= 4 && words.contains(word) }
        for byte in name.utf8 {
            let upper: UInt8
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): upper = byte - 32
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): upper = byte
            default:
                if isHD() { return true }
                word = 0
                length = 0
                continue
            }
            if length < 4 { word = word << 8 | UInt32(upper) }
            length += 1
        }
        return isHD()
    }
}
