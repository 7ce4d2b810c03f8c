import Hummingbird
import HTTPTypes
import Logging
import MediaCache
import NIOCore
import NIOHTTP1
import TunerApp

/// The stream proxy: `GET|HEAD /stream/<signature>/<payload>/<name>`.
struct StreamController {
    let engine: TunerEngine
    let fallbackBaseURL: @Sendable () -> String

    func addRoutes(to router: Router<TunerRequestContext>) {
        router.get("/stream/:signature/:payload/:name", use: stream)
        router.head("/stream/:signature/:payload/:name", use: stream)
    }

    @Sendable func stream(request: Request, context: TunerRequestContext) async throws -> Response {
        let signature = try context.parameters.require("signature")
        let payload = try context.parameters.require("payload")
        let link: StreamLink
        do {
            link = try engine.signer.verify(signature: signature, payload: payload)
        } catch .badSignature {
            throw HTTPError(.forbidden, message: StreamLinkError.badSignature.description)
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        // Rewritten playlist URIs point back at the address the player used.
        let proxyBase = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let media = await engine.streams.serve(
            link: link, method: request.method == .head ? .head : .get, range: request.headers[.range],
            ifRange: request.headers[.ifRange], requestID: context.id, proxyBase: proxyBase)
        return Response(media, channel: context.channel)
    }
}

extension Response {
    /// Converts the cache's answer, streaming its body into the connection.
    init(_ media: MediaResponse, channel: (any Channel)? = nil) {
        var fields = HTTPFields()
        for header in media.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let body: ResponseBody
        if let mediaBody = media.body {
            body = ResponseBody { writer in
                var sink: any MediaBodySink = WriterSink(writer: writer, channel: channel)
                try await mediaBody.write(into: &sink)
                try await writer.finish(nil)
            }
        } else {
            body = ResponseBody()
        }
        self.init(status: HTTPResponse.Status(code: media.status), headers: fields, body: body)
    }
}

/// Lets the cache write into Hummingbird's response writer.
private struct WriterSink: MediaBodySink {
    var writer: any ResponseBodyWriter
    let channel: (any Channel)?
    /// Bytes written since the event loop was last asked about the channel.
    var unchecked = 0

    /// How much may be written on the strength of `isWritable` alone (read without a hop, it
    /// lags behind writes still queued for the event loop).
    static let checkInterval = 256 << 10

    mutating func write(_ buffer: ByteBuffer) async throws {
        unchecked += buffer.readableBytes
        try await writer.write(buffer)
    }

    /// Waits until the connection has taken what was written: every 256 KiB (or whenever the
    /// channel says it is full) the channel's writability is read on its event loop, after the
    /// writes queued before, and while the socket is full the reader pauses, so a slow player
    /// holds about NIO's high-water mark in memory.
    mutating func waitUntilHandedOver() async {
        guard let channel else { return }
        if unchecked < Self.checkInterval && channel.isWritable { return }
        unchecked = 0
        while !Task.isCancelled {
            let state = try? await channel.eventLoop.submit { (channel.isActive, channel.isWritable) }.get()
            guard let (active, writable) = state, active, !writable else { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
