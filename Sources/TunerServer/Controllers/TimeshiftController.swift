import Foundation
import HTTPTypes
import Hummingbird
import LiveTV
import NIOCore
import TunerAPI
import TunerApp

/// Time-shift under `/api/v1/channels/{id}/timeshift`: what a channel's window holds, the window
/// as HLS with wall-clock times and its segments (for any HLS player), and the window as
/// fragmented MP4 for the web player, which pauses and rewinds in it. Each route decodes, calls
/// ``TimeshiftPlayback`` and encodes.
struct TimeshiftController {
    let timeshift: TimeshiftPlayback

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.timeshift) { [timeshift] request, context in
            try await timeshift.status(channelID: try Self.id(context), at: try Self.seconds("at", request))
        }
        router.add(.timeshiftPlaylist) { [timeshift] request, context in
            let text = try await timeshift.playlist(
                channelID: try Self.id(context), from: try Self.seconds("from", request),
                to: try Self.seconds("to", request))
            var headers = HTTPFields()
            headers[.contentType] = "application/vnd.apple.mpegurl"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.add(.timeshiftSegment) { [timeshift] request, context in
            let name = try context.parameters.require("name")
            let path = try timeshift.segmentPath(channelID: try Self.id(context), name: name)
            // Trimmed since the playlist named it: gone, as the playlist's next reload says.
            return try await RecordingsController.serve(
                path, request: request, context: context, missing: "segment \(name) left the time-shift window")
        }
        router.add(.timeshiftStream) { [timeshift] request, context in
            var headers = HTTPFields()
            headers[.contentType] = "video/mp4"
            headers[.cacheControl] = "no-cache, no-store"
            let id = try Self.id(context)
            let from = try Self.seconds("from", request)
            let to = try Self.seconds("to", request)
            if request.method == .head { return Response(status: .ok, headers: headers) }
            let stream = try await timeshift.browserStream(
                channelID: id, from: from, to: to, address: LiveController.address(of: context))
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    // The browser leaving makes a write throw: ffmpeg stops and the channel is let go.
                    try await stream.run { try await writer.write($0) }
                    try await writer.finish(nil)
                })
        }
    }

    /// A span of a window (local catch-up) as one MPEG-TS answer, read from its segments as the
    /// player takes it: `[from, to)` in seconds since 1970.
    static func transportStream(_ window: TimeshiftWindow, from: Int64, to: Int64, head: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "video/mp2t"
        headers[.cacheControl] = "no-cache"
        if head { return Response(status: .ok, headers: headers) }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                var reader = TimeshiftReader(window: window, from: from * 1000, until: to * 1000)
                while let chunk = try await reader.next() { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }

    private static func id(_ context: TunerRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text) else {
            throw FeatureError(.invalid, "a channel id is a whole number")
        }
        return id
    }

    /// `?name=` as seconds since 1970 (a decimal number); absent is nil, anything else is 400.
    private static func seconds(_ name: String, _ request: Request) throws -> Double? {
        guard let text = request.uri.queryParameters.get(name) else { return nil }
        guard text.utf8.count <= 20, let value = Double(text), value.isFinite else {
            throw FeatureError(.invalid, "\(name) is seconds since 1970, like 1764300000")
        }
        return value
    }
}

extension TimeshiftAnswer: ResponseEncodable {}
