import Testing

@testable import Outputs

/// UPnP searches as Plex and Emby send them, and what Tuner does with anything else.
@Suite struct SSDPTests {
    static let search = Array(
        "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 2\r\nST: ssdp:all\r\n\r\n"
            .utf8)

    @Test func aSearchIsReadAndAnsweredWithTheDevicesDescription() throws {
        #expect(SSDP.searchTarget(Self.search) == "ssdp:all")
        #expect(
            SSDP.answers("ssdp:all", uuid: "u") && SSDP.answers("urn:schemas-upnp-org:device:MediaServer:1", uuid: "u"))
        #expect(SSDP.answers("uuid:u", uuid: "u") && !SSDP.answers("uuid:v", uuid: "u"))
        #expect(!SSDP.answers("urn:schemas-upnp-org:device:Printer:1", uuid: "u"))
        let reply = SSDP.reply(target: "upnp:rootdevice", uuid: "u", location: "http://10.0.0.2:8080/device.xml")
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n") && reply.hasSuffix("\r\n\r\n"))
        #expect(
            reply.contains("LOCATION: http://10.0.0.2:8080/device.xml\r\n")
                && reply.contains("USN: uuid:u::upnp:rootdevice"))
    }

    @Test func anythingElseIsDropped() {
        let notify = Array("NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\n".utf8)
        let noMan = Array("M-SEARCH * HTTP/1.1\r\nST: ssdp:all\r\n\r\n".utf8)
        let noTarget = Array("M-SEARCH * HTTP/1.1\r\nMAN: \"ssdp:discover\"\r\n\r\n".utf8)
        let huge = Self.search + [UInt8](repeating: 0x41, count: 3000)
        for packet in [notify, noMan, noTarget, huge, [0xFF, 0xFE, 0x00], []] {
            #expect(SSDP.searchTarget(packet) == nil)
        }
    }
}
