import Logging
import NIOCore
import NIOPosix
import Outputs
import ServiceLifecycle
import TunerApp

/// Answers SiliconDust's HDHomeRun discovery on UDP (65001 unless configured): a discover request
/// for any tuner, or for one of the profiles' device ids, gets one reply per matching profile,
/// carrying its device id, stream limit, BaseURL and LineupURL. `hdhomerun_config discover`,
/// Plex and Jellyfin find Tuner this way instead of being given its address.
///
/// Malformed packets (short, long, bad CRC, other types) are dropped without an answer. When the
/// port is taken (another tuner emulator, another Tuner), the server runs on without discovery.
struct HDHomeRunDiscoveryService: Service {
    let engine: TunerEngine
    let port: Int
    /// The API token, or nil on loopback: beyond loopback the reply's URLs carry the profile key,
    /// as the LAN must be able to read what discovery announces.
    let token: String?
    let httpPort: @Sendable () -> Int?

    func run() async throws {
        let host = engine.configuration.host == "::" ? "0.0.0.0" : engine.configuration.host
        try await UDPResponder.run(
            name: "HDHomeRun discovery", host: host, port: port, logger: engine.logger, replies: replies(to:))
    }

    func replies(to envelope: AddressedEnvelope<ByteBuffer>) async -> [AddressedEnvelope<ByteBuffer>] {
        guard let request = HDHomeRunPacket.parseRequest(Array(buffer: envelope.data)),
            let httpPort = httpPort(), let profiles = try? await engine.outputs.profiles()
        else { return [] }
        let address = Self.localAddress(answering: envelope.remoteAddress, configured: engine.configuration.host)
        let base = engine.configuration.baseURL ?? "http://\(address):\(httpPort)"
        return profiles.filter { request.matches(deviceID: $0.deviceID) }.map { profile in
            let links = OutputLinks(base: base, profileID: profile.id, key: token == nil ? nil : profile.accessKey)
            let device = HDHomeRunDevice(profile: profile, links: links)
            let reply = HDHomeRunPacket.reply(
                .init(
                    deviceID: profile.deviceID, tunerCount: profile.streamLimit, baseURL: links.deviceBase,
                    lineupURL: links.deviceBase + "/lineup.json", deviceAuth: device.deviceAuth))
            return AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(bytes: reply))
        }
    }

    /// The address the asker reaches Tuner at: the configured one, or (listening on every
    /// interface) the address of the interface whose subnet holds the asker.
    static func localAddress(answering remote: SocketAddress, configured: String) -> String {
        if configured != "0.0.0.0" && configured != "::" {
            return configured.contains(":") ? "[\(configured)]" : configured
        }
        guard case .v4(let asker) = remote else { return "127.0.0.1" }
        let askerBits = UInt32(bigEndian: asker.address.sin_addr.s_addr)
        if askerBits >> 24 == 127 { return "127.0.0.1" }
        for device in (try? System.enumerateDevices()) ?? [] {
            guard case .v4(let own)? = device.address, case .v4(let mask)? = device.netmask else { continue }
            let ownBits = UInt32(bigEndian: own.address.sin_addr.s_addr)
            let maskBits = UInt32(bigEndian: mask.address.sin_addr.s_addr)
            if ownBits & maskBits == askerBits & maskBits, let text = device.address?.ipAddress { return text }
        }
        return "127.0.0.1"
    }
}
