import Foundation

/// UPnP's discovery (SSDP, UDP 1900): the answer to an `M-SEARCH` for a media server, as the
/// tuners Plex and Emby already know send it, pointing at a profile's `device.xml`.
public enum SSDP {
    /// The multicast group and port searches are sent to.
    public static let group = "239.255.255.250"
    public static let port = 1900

    /// The search targets Tuner answers: everything, root devices, media servers, or its own UUID.
    public static func answers(_ target: String, uuid: String) -> Bool {
        ["ssdp:all", "upnp:rootdevice", "urn:schemas-upnp-org:device:MediaServer:1", "uuid:\(uuid)"].contains(target)
    }

    /// The search target of an `M-SEARCH` request, or nil for anything else: another method, no
    /// `MAN: "ssdp:discover"`, no `ST`, more than 2 KiB, bytes that are not text.
    public static func searchTarget(_ bytes: [UInt8]) -> String? {
        guard bytes.count <= 2048, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" })
        guard let first = lines.first, first.uppercased().hasPrefix("M-SEARCH * HTTP/1.1") else { return nil }
        var target: String?
        var discover = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "st" { target = value }
            if name == "man" { discover = value.replacingOccurrences(of: "\"", with: "") == "ssdp:discover" }
        }
        guard discover, let target, !target.isEmpty, target.count <= 200 else { return nil }
        return target
    }

    /// The reply for `target`, the device described at `location`.
    public static func reply(target: String, uuid: String, location: String) -> String {
        let usn = target == "uuid:\(uuid)" ? target : "uuid:\(uuid)::\(target)"
        return "HTTP/1.1 200 OK\r\n" + "CACHE-CONTROL: max-age=1800\r\n" + "EXT:\r\n" + "LOCATION: \(location)\r\n"
            + "SERVER: Linux/1.0 UPnP/1.0 Tuner/1.0\r\n" + "ST: \(target)\r\n" + "USN: \(usn)\r\n\r\n"
    }
}
