import Foundation
import HTTPTypes
import Hummingbird
import LiveTV
import NIOCore
import Outputs
import Streaming
import TunerAPI
import TunerApp

/// What players read: `/output/<profile>.m3u`, `/output/<profile>.xml`, the HDHomeRun files
/// of each profile (under `/output/<profile>/`, and at the root for the default profile, where
/// Plex and Jellyfin look for a tuner), and `/play/<profile>/<number>`, the channel itself.
///
/// Read-only. When Tuner listens beyond loopback, a request needs the profile's key (`?key=`, or
/// `/output/<profile>/key/<key>/…` for the HDHomeRun files, whose URLs players extend) or the
/// API token; the request guard lets these paths through to this check. The root HDHomeRun files
/// are the exception when ``rootOpen``: Jellyfin and Plex read them knowing only the address.
struct OutputController {
    let engine: TunerEngine
    /// The API token, or nil when Tuner listens on loopback only (then no key is needed).
    let token: String?
    let fallbackBaseURL: @Sendable () -> String
    /// On the HDHomeRun-only listener (`--hdhomerun-http-port`): the main port, which the URLs in
    /// its answers point at. Nil on the main listener.
    var mainPort: (@Sendable () -> Int?)? = nil
    /// Whether the root HDHomeRun files (and `/auto/v…`) answer without a key beyond loopback:
    /// always on the HDHomeRun-only listener, on the main port when the user says so
    /// (`--hdhomerun-open`). Their URLs carry the key then, as discovery's reply already does.
    var rootOpen = false

    static let hdhomerunFiles = [
        "discover.json", "lineup.json", "lineup.xml", "lineup.m3u", "lineup_status.json", "device.xml",
    ]

    /// The default profile's HDHomeRun files and `/auto/v…` at the root: all the second listener
    /// serves.
    func addRootRoutes(to router: some RouterMethods<TunerRequestContext>) {
        for file in Self.hdhomerunFiles {
            router.get("/\(file)") { request, context in
                try await hdhomerun(
                    file, profileID: OutputProfile.defaultID, key: nil, open: rootOpen, request, context)
            }
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/auto/:channel", method: method) { request, context in
                try await tune(profileID: OutputProfile.defaultID, key: nil, open: rootOpen, request, context)
            }
        }
        // A real tuner starts a channel scan; Tuner's lineup comes from the playlists, so there
        // is nothing to do but answer as a tuner does.
        router.post("/lineup.post") { _, _ in Response(status: .ok) }
    }

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        addRootRoutes(to: router)
        router.get("/output/:profile", use: playlistOrGuide)
        router.head("/output/:profile", use: playlistOrGuide)
        for file in Self.hdhomerunFiles {
            router.get("/output/:profile/\(file)") { request, context in
                try await hdhomerun(
                    file, profileID: try context.parameters.require("profile"), key: nil, open: false, request, context)
            }
            router.get("/output/:profile/key/:key/\(file)") { request, context in
                try await hdhomerun(
                    file, profileID: try context.parameters.require("profile"),
                    key: try context.parameters.require("key"), open: false, request, context)
            }
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/output/:profile/auto/:channel", method: method) { request, context in
                try await tune(
                    profileID: try context.parameters.require("profile"), key: nil, open: false, request, context)
            }
            router.on("/output/:profile/key/:key/auto/:channel", method: method) { request, context in
                try await tune(
                    profileID: try context.parameters.require("profile"), key: try context.parameters.require("key"),
                    open: false, request, context)
            }
        }
        router.post("/output/:profile/lineup.post") { _, _ in Response(status: .ok) }
        router.post("/output/:profile/key/:key/lineup.post") { _, _ in Response(status: .ok) }
        router.add(.outputs, use: list)
        router.add(.addOutput, use: add)
        router.add(.changeOutput, use: change)
        router.add(.removeOutput, use: remove)
        router.add(.outputChannels, use: channels)
        router.get("/play/:profile/:number", use: play)
        router.head("/play/:profile/:number", use: play)
    }

    struct Answer<Value: Encodable & Sendable>: ResponseEncodable {
        var value: Value
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    /// Where players reach Tuner: the configured base URL (behind a reverse proxy), else the Host
    /// the request came to (with the main port, on the HDHomeRun-only listener).
    func base(_ request: Request) -> String {
        Self.base(request, configured: engine.configuration.baseURL, mainPort: mainPort?(), fallback: fallbackBaseURL)
    }

    static func base(
        _ request: Request, configured: String?, mainPort: Int? = nil, fallback: () -> String
    ) -> String {
        if let configured { return configured }
        guard var authority = request.head.authority else { return fallback() }
        if let mainPort {
            // `host:port`, `[v6]:port` or a bare host: keep the host, use the main port.
            if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
                authority = String(authority[..<colon])
            }
            authority += ":\(mainPort)"
        }
        return "http://\(authority)"
    }

    /// `GET /api/v1/outputs`: each profile with its key and the URLs to give players (keyed, so
    /// they work from other machines). Behind the API token beyond loopback, like the rest of the API.
    @Sendable func list(request: Request, context: TunerRequestContext) async throws -> Answer<OutputProfileList> {
        var answers: [OutputProfileAnswer] = []
        for profile in try await engine.outputs.profiles() {
            answers.append(try await engine.outputs.answer(for: profile, base: base(request)))
        }
        return Answer(value: OutputProfileList(profiles: answers))
    }

    @Sendable func add(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        Answer<OutputProfileAnswer>
    > {
        let settings = try await Self.decode(request, context)
        let profile = try await engine.outputs.create(settings)
        let answer = try await engine.outputs.answer(for: profile, base: base(request))
        return EditedResponse(status: .created, response: Answer(value: answer))
    }

    @Sendable func change(request: Request, context: TunerRequestContext) async throws -> Answer<OutputProfileAnswer> {
        let id = try context.parameters.require("id")
        var settings = try await Self.decode(request, context)
        guard settings.id == nil || settings.id == id else {
            throw FeatureError(.invalid, "a profile's id cannot change; add a new profile instead")
        }
        settings.id = nil
        let profile = try await engine.outputs.update(id: id, settings: settings)
        return Answer(value: try await engine.outputs.answer(for: profile, base: base(request)))
    }

    @Sendable func remove(request: Request, context: TunerRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        try await engine.outputs.remove(id: id)
        return Response(status: .noContent)
    }

    @Sendable func channels(request: Request, context: TunerRequestContext) async throws -> Answer<OutputChannelList> {
        let id = try context.parameters.require("id")
        let channels = try await engine.outputs.lineup(profileID: id)
        return Answer(
            value: OutputChannelList(
                channels: channels.map {
                    OutputChannelAnswer(
                        number: $0.number, name: $0.name, itemID: $0.item.id, identity: $0.item.identity,
                        group: $0.item.group)
                }))
    }

    static func decode(_ request: Request, _ context: TunerRequestContext) async throws -> OutputProfileSettings {
        do {
            return try await request.decode(as: OutputProfileSettings.self, context: context)
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
    }

    /// The profile, once the request may read it. `open`: no key is needed (the root HDHomeRun
    /// files when ``rootOpen``).
    func authorised(
        profileID: String, key pathKey: String?, open: Bool = false, _ request: Request
    ) async throws -> (OutputProfile, key: String?) {
        let profile: OutputProfile
        do {
            profile = try await engine.outputs.profile(id: profileID)
        } catch {
            throw FeatureError(.notFound, error.description, cause: error)
        }
        let key = pathKey ?? request.uri.queryParameters["key"].map(String.init)
        if let token, !open {
            let tokenOK = RequestGuardMiddleware.carriesToken(request, token: token)
            guard tokenOK || OutputCenter.opens(profile, key: key) else {
                throw FeatureError(
                    .unauthenticated,
                    """
                    this Tuner listens beyond localhost: add the profile's key (?key=…, shown by \
                    `tuner outputs`) to the URL
                    """)
            }
        }
        // URLs in the answer carry the key when the request did, so they work from where they are
        // read; and beyond loopback when the files are open, since their reader has no key to add.
        let keyed = OutputCenter.opens(profile, key: key) || (open && token != nil)
        return (profile, keyed ? profile.accessKey : nil)
    }

    func links(_ request: Request, profile: OutputProfile, key: String?) -> OutputLinks {
        OutputLinks(base: base(request), profileID: profile.id, key: key)
    }

    @Sendable func playlistOrGuide(request: Request, context: TunerRequestContext) async throws -> Response {
        // The one segment is `<profile>.m3u` or `<profile>.xml` (Hummingbird names it once for all /output routes).
        let file = try context.parameters.require("profile")
        let isPlaylist = file.hasSuffix(".m3u") || file.hasSuffix(".m3u8")
        guard isPlaylist || file.hasSuffix(".xml") else {
            throw FeatureError(.notFound, "outputs are /output/<profile>.m3u and /output/<profile>.xml")
        }
        let profileID = String(file[..<(file.lastIndex(of: ".") ?? file.endIndex)])
        let (profile, key) = try await authorised(profileID: profileID, key: nil, request)
        let links = links(request, profile: profile, key: key)
        if isPlaylist {
            let text = try await engine.outputs.playlist(profile: profile, links: links)
            return Self.text(text, type: "audio/x-mpegurl; charset=utf-8", head: request.method == .head)
        }
        let outputs = engine.outputs
        return Self.guideResponse(request) { write in
            try await outputs.guide(profile: profile, links: links, write: write)
        }
    }

    /// A streamed XMLTV answer, gzipped when the player accepts it (guides compress about tenfold).
    static func guideResponse(
        _ request: Request, produce: @escaping @Sendable ((String) async throws -> Void) async throws -> Void
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        let gzip = acceptsGzip(request.headers[.acceptEncoding])
        if gzip { headers[.contentEncoding] = "gzip" }
        headers[.vary] = "Accept-Encoding"
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let compressor = gzip ? GzipCompressor() : nil
                var pending = ByteBuffer()
                try await produce { text in
                    if let compressor {
                        var compressed = compressor.compress(text)
                        pending.writeBuffer(&compressed)
                    } else {
                        pending.writeString(text)
                    }
                    if pending.readableBytes >= 64 << 10 {
                        try await writer.write(pending)
                        pending = ByteBuffer()
                    }
                }
                if let compressor {
                    var rest = compressor.finish()
                    pending.writeBuffer(&rest)
                }
                if pending.readableBytes > 0 { try await writer.write(pending) }
                try await writer.finish(nil)
            })
    }

    /// Whether `Accept-Encoding` allows gzip (and does not refuse it with `q=0`).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.lowercased().split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first == "gzip" || fields.first == "x-gzip" else { continue }
            let q = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return q > 0
        }
        return false
    }

    func hdhomerun(
        _ file: String, profileID: String, key: String?, open: Bool, _ request: Request,
        _ context: TunerRequestContext
    ) async throws -> Response {
        let (profile, key) = try await authorised(profileID: profileID, key: key, open: open, request)
        let device = engine.outputs.device(profile: profile, links: links(request, profile: profile, key: key))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        switch file {
        case "discover.json":
            return Self.text(
                String(decoding: try encoder.encode(device.discover), as: UTF8.self), type: "application/json")
        case "lineup.json":
            let channels = try await engine.outputs.streams(profileID: profile.id)
            return Self.text(device.lineupJSON(channels), type: "application/json")
        case "lineup.xml":
            let channels = try await engine.outputs.streams(profileID: profile.id)
            return Self.text(device.lineupXML(channels), type: "application/xml; charset=utf-8")
        case "lineup.m3u":
            let channels = try await engine.outputs.streams(profileID: profile.id)
            return Self.text(device.lineupM3U(channels), type: "audio/x-mpegurl; charset=utf-8")
        case "lineup_status.json":
            return Self.text(
                String(decoding: try encoder.encode(HDHomeRunDevice.lineupStatus), as: UTF8.self),
                type: "application/json")
        default:
            return Self.text(device.deviceXML, type: "application/xml; charset=utf-8")
        }
    }

    /// The channel itself, as the player asked for it: the media, streamed, never a redirect
    /// (Plex and Jellyfin expect a tuner's bytes). A live channel takes HDHomeRun's `?transcode=` and
    /// `?duration=` (see ``LiveController/play(_:_:engine:)``).
    @Sendable func play(request: Request, context: TunerRequestContext) async throws -> Response {
        let text = try context.parameters.require("number")
        // Players write "12", some "12.0"; anything else is no channel.
        guard let number = Int(text.hasSuffix(".0") ? String(text.dropLast(2)) : text) else {
            throw FeatureError(.notFound, "'\(text)' is not a channel number")
        }
        return try await play(
            profileID: try context.parameters.require("profile"), key: nil, open: false, number: number, request,
            context)
    }

    /// `/auto/v<GuideNumber>`, where real devices stream a channel: the same answer as the
    /// lineup's URL for that channel (query and all), so the same live session serves both.
    func tune(
        profileID: String, key: String?, open: Bool, _ request: Request, _ context: TunerRequestContext
    ) async throws -> Response {
        let text = try context.parameters.require("channel")
        // `v` and a GuideNumber exactly as the lineup writes it; anything else is no channel.
        let digits = text.dropFirst()
        guard text.hasPrefix("v"), !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits), String(number) == digits
        else {
            throw FeatureError(.notFound, "a tuner stream is /auto/v<GuideNumber>, as lineup.json lists them")
        }
        return try await play(profileID: profileID, key: key, open: open, number: number, request, context)
    }

    func play(
        profileID: String, key: String?, open: Bool, number: Int, _ request: Request, _ context: TunerRequestContext
    ) async throws -> Response {
        let (profile, _) = try await authorised(profileID: profileID, key: key, open: open, request)
        let query = request.uri.queryParameters
        let link: StreamLink
        if let utc = query["utc"] {
            // A catch-up request from the M3U's catchup-source: digits only, checked times.
            guard let start = Int64(utc), query["duration"].map({ Int64($0) != nil }) ?? true else {
                throw FeatureError(.invalid, "utc and duration must be whole seconds")
            }
            let duration = query["duration"].flatMap { Int64($0) }
            switch try await engine.outputs.catchupStream(
                profileID: profile.id, number: number, start: start, duration: duration)
            {
            case .provider(let found): link = found
            case .window(let window, let from, let to):
                return TimeshiftController.transportStream(window, from: from, to: to, head: request.method == .head)
            }
        } else {
            let (found, channel) = try await engine.outputs.stream(profileID: profile.id, number: number)
            if channel.item.kind == .live {
                // One upstream per channel, and no more channels at once than the profile has tuners.
                let live = LiveSessions.Request(
                    channelID: channel.item.id,
                    profile: try LiveController.profile(
                        of: request, fallback: StreamProfile(rawValue: profile.streamProfile) ?? .direct),
                    address: LiveController.address(of: context), outputProfile: profile.id,
                    profileLimit: profile.streamLimit, priority: LiveSessions.Priority.outputProfile)
                return try await LiveController.play(live, request, engine: engine)
            }
            link = found
        }
        if TSRemux.isHLS(link.url) {
            return try remuxed(link, request: request)
        }
        let proxyBase = base(request)
        let media = await engine.proxy.serve(
            link: link, method: request.method == .head ? .head : .get, range: nil, ifRange: nil,
            requestID: context.id, proxyBase: proxyBase)
        return Response(media, channel: context.channel)
    }

    /// An HLS channel as MPEG-TS: ffmpeg copies it from Tuner's own proxy URL (see ``TSRemux``).
    func remuxed(_ link: StreamLink, request: Request) throws -> Response {
        guard TSRemux.ffmpegPath != nil else {
            throw FeatureError(.upstream, "this channel is HLS and playing it as MPEG-TS needs ffmpeg; install ffmpeg")
        }
        var headers = HTTPFields()
        headers[.contentType] = "video/mp2t"
        headers[.cacheControl] = "no-cache"
        if request.method == .head { return Response(status: .ok, headers: headers) }
        // The server's own address (never the player's view of it): ffmpeg runs beside Tuner.
        let input = try engine.proxy.proxyURL(for: link, baseURL: fallbackBaseURL())
        let logger = engine.logger
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await TSRemux.stream(input, logger: logger) { chunk in try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }

    static func text(_ text: String, type: String, head: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentLength] = String(text.utf8.count)
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
