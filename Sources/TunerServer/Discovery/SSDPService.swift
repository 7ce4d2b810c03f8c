import Logging
import NIOCore
import NIOPosix
import Outputs
import ServiceLifecycle
import TunerApp

/// Answers UPnP searches (SSDP, UDP 1900 unless configured) for media servers with each
/// profile's `device.xml`, as the HDHomeRun tuners players already know do. Joins the SSDP
/// multicast group when it can and answers unicast searches either way; malformed packets are
/// dropped. When the port is taken the server runs on without it.
struct SSDPService: Service {
    let engine: TunerEngine
    let port: Int
    /// The API token, or nil on loopback: beyond loopback the location carries the profile key.
    let token: String?
    let httpPort: @Sendable () -> Int?

    func run() async throws {
        let logger = engine.logger
        let host = engine.configuration.host == "::" ? "0.0.0.0" : engine.configuration.host
        // Other UPnP programs on the machine listen on 1900 too; the group is shared.
        try await UDPResponder.run(
            name: "SSDP", host: host, port: port, shareAddress: true, logger: logger,
            prepare: { channel in
                guard host == "0.0.0.0", let multicast = channel.channel as? any MulticastChannel else { return }
                do {
                    try await multicast.joinGroup(try SocketAddress(ipAddress: SSDP.group, port: SSDP.port)).get()
                } catch {
                    logger.notice("SSDP answers unicast searches only: cannot join \(SSDP.group) (\(error))")
                }
            }, replies: replies(to:))
    }

    func replies(to envelope: AddressedEnvelope<ByteBuffer>) async -> [AddressedEnvelope<ByteBuffer>] {
        guard let target = SSDP.searchTarget(Array(buffer: envelope.data)), let httpPort = httpPort(),
            let profiles = try? await engine.outputs.profiles()
        else { return [] }
        let address = HDHomeRunDiscoveryService.localAddress(
            answering: envelope.remoteAddress, configured: engine.configuration.host)
        let base = engine.configuration.baseURL ?? "http://\(address):\(httpPort)"
        return profiles.compactMap { profile in
            let links = OutputLinks(base: base, profileID: profile.id, key: token == nil ? nil : profile.accessKey)
            let device = HDHomeRunDevice(profile: profile, links: links)
            guard SSDP.answers(target, uuid: device.uuid) else { return nil }
            let text = SSDP.reply(target: target, uuid: device.uuid, location: links.deviceBase + "/device.xml")
            return AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: ByteBuffer(string: text))
        }
    }
}
