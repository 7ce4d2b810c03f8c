import Foundation
import Testing

@testable import Outputs

/// The discovery protocol as libhdhomerun frames it, and what Tuner does with bad packets.
@Suite struct HDHomeRunPacketTests {
    /// The bytes `hdhomerun_config discover` sends (captured from the Debian package's client).
    static let capturedRequest: [UInt8] = [
        0x00, 0x02, 0x00, 0x0C, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x04, 0xFF, 0xFF, 0xFF, 0xFF,
        0x73, 0xCC, 0x7D, 0x8F,
    ]

    @Test func theRealClientsRequestIsReadAsAWildcard() throws {
        let request = try #require(HDHomeRunPacket.parseRequest(Self.capturedRequest))
        #expect(request.deviceType == HDHomeRunPacket.wildcard && request.deviceID == HDHomeRunPacket.wildcard)
        #expect(request.matches(deviceID: 0x1054_A1B9))
        #expect(
            HDHomeRunPacket.request(deviceType: 0xFFFF_FFFF) == Self.capturedRequest,
            "Tuner frames as libhdhomerun does")
    }

    @Test func aRequestForAnotherDeviceOrTypeIsNotAnswered() throws {
        let other = try #require(HDHomeRunPacket.parseRequest(HDHomeRunPacket.request(deviceID: 0x1054_A1B9)))
        #expect(other.matches(deviceID: 0x1054_A1B9))
        #expect(!other.matches(deviceID: 0x1234_5675))
        let storage = try #require(HDHomeRunPacket.parseRequest(HDHomeRunPacket.request(deviceType: 0x0000_0005)))
        #expect(!storage.matches(deviceID: 0x1054_A1B9))
    }

    @Test func aReplyCarriesTheDeviceAndLongURLs() throws {
        let base = "http://192.168.1.10:5004/output/default/key/" + String(repeating: "a", count: 150)
        let reply = HDHomeRunPacket.reply(
            .init(
                deviceID: 0x1054_A1B9, tunerCount: 3, baseURL: base, lineupURL: base + "/lineup.json",
                deviceAuth: "tuner1054a1b9"))
        let items = try #require(HDHomeRunPacket.parseReply(reply))
        #expect(items[HDHomeRunPacket.Tag.deviceID] == [0x10, 0x54, 0xA1, 0xB9])
        #expect(items[HDHomeRunPacket.Tag.tunerCount] == [3])
        #expect(items[HDHomeRunPacket.Tag.baseURL].map { String(decoding: $0, as: UTF8.self) } == base)
        #expect(
            items[HDHomeRunPacket.Tag.lineupURL].map { String(decoding: $0, as: UTF8.self) } == base + "/lineup.json")
    }

    @Test func malformedPacketsAreDropped() {
        var badCRC = Self.capturedRequest
        badCRC[19] ^= 0xFF
        var badLength = Self.capturedRequest
        badLength[3] = 0x0D
        var overlongItem = Self.capturedRequest
        overlongItem[5] = 0x7F  // an item longer than the payload
        var twoByteLengthCut = HDHomeRunPacket.frame(type: HDHomeRunPacket.discoverRequest, payload: [0x01, 0x80])
        twoByteLengthCut.removeLast(0)
        let reply = HDHomeRunPacket.reply(
            .init(deviceID: 1, tunerCount: 1, baseURL: "", lineupURL: "", deviceAuth: ""))
        for packet in [
            [], Array(Self.capturedRequest.prefix(7)), badCRC, badLength, overlongItem, twoByteLengthCut, reply,
        ] {
            #expect(HDHomeRunPacket.parseRequest(packet) == nil, "\(packet)")
        }
        #expect(HDHomeRunPacket.parseRequest([UInt8](repeating: 0, count: 2000)) == nil)
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 4, Bool.random(using: &generator) {
                // Mostly well-framed, so the item reader is reached too.
                bytes = HDHomeRunPacket.frame(type: HDHomeRunPacket.discoverRequest, payload: Array(bytes.dropFirst(4)))
            }
            _ = HDHomeRunPacket.parseRequest(bytes)
            _ = HDHomeRunPacket.parseReply(bytes)
        }
    }

    @Test func deviceIDsPassLibhdhomerunsChecksum() {
        #expect(HDHomeRunDeviceID.isValid(0x1054_A1B9))
        #expect(!HDHomeRunDeviceID.isValid(0x1054_A1B2))
        for _ in 0..<1000 {
            let id = HDHomeRunDeviceID.random()
            #expect(HDHomeRunDeviceID.isValid(id) && id >> 28 == 1, "\(HDHomeRunDeviceID.text(id))")
        }
        #expect(HDHomeRunDeviceID.text(0x0000_00AB) == "000000AB")
    }
}

/// The hand-written lineup.json is the same document Foundation's encoder writes.
@Suite struct HDHomeRunLineupTests {
    @Test func theHandWrittenLineupDecodesToTheEncodedOne() throws {
        let names = ["BBC One HD", "Quote \" and \\ slash / tab\tend", "Ctrl \u{1}\u{1F} é 中文 🎉", "fhd", "News"]
        let channels = names.enumerated().map { index, name in
            OutputChannel(
                number: index + 1, name: name,
                item: .init(
                    id: Int64(index), sourceID: 1, kind: .live, identity: name, name: name, url: "http://h/x",
                    isFavourite: index == 0))
        }
        let device = HDHomeRunDevice(
            profile: OutputProfile(id: "default", name: "Tuner", deviceID: 0x1054_A1B9, accessKey: "k"),
            links: OutputLinks(base: "http://10.0.0.2:8080", profileID: "default", key: nil))
        let decoded = try JSONDecoder().decode(
            [HDHomeRunDevice.LineupEntry].self, from: Data(device.lineupJSON(channels).utf8))
        #expect(decoded == device.lineup(channels))
        #expect(decoded.map(\.HD) == [1, 0, 0, 1, 0] && decoded.first?.Favorite == 1)
        #expect(
            HDHomeRunDevice.looksHD("UHD-4K") && HDHomeRunDevice.looksHD("x 720") && !HDHomeRunDevice.looksHD("HDX"))
    }
}
