import NIOCore
import NIOHTTP1

/// Everything needed to write one response: its head, where its body comes from, and how to misbehave.
struct ResponsePlan {
    /// What happens after the last body byte.
    enum Ending {
        /// Finish the response; close afterwards unless the connection is kept alive.
        case complete(keepAlive: Bool)
        /// Close without finishing the response (the reset and bad-length faults); `hard` sends a
        /// TCP RST instead of a FIN.
        case close(hard: Bool)
        /// Send nothing more and leave the connection open until the client closes it (`hold=`).
        case hold
    }

    var head: HTTPResponseHead
    var source: BodySource
    /// The offsets of `source` to send; empty for HEAD, shortened by a reset fault.
    var bodyRange: Range<Int>
    var delay: TimeAmount? = nil
    var drip: (bytes: Int, pause: TimeAmount)? = nil
    var ending: Ending
    /// The request's path, for `TestOrigin.bodyBytesSent(path:)`.
    var path = ""

    /// A short text response (errors, redirects, 416), with no body for HEAD requests.
    static func text(
        _ status: HTTPResponseStatus,
        _ text: String,
        replyingTo request: HTTPRequestHead,
        headers extraHeaders: [(String, String)] = [],
        delay: TimeAmount? = nil
    ) -> ResponsePlan {
        var headers = HTTPHeaders(extraHeaders)
        let body = ByteBuffer(string: text)
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        if !request.isKeepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        }
        return ResponsePlan(
            head: HTTPResponseHead(version: request.version, status: status, headers: headers),
            source: .text(body),
            bodyRange: 0..<(request.method == .HEAD ? 0 : body.readableBytes),
            delay: delay,
            ending: .complete(keepAlive: request.isKeepAlive)
        )
    }
}
