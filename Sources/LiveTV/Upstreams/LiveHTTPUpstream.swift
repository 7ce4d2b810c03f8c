import AsyncHTTPClient
import Catalog
import Fetching
import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

/// A channel's stream read straight from its provider, with the headers the playlist set.
enum LiveHTTPUpstream {
    /// `resumePoint`: how far the session got into this channel before (a file it was playing
    /// goes on where it stopped).
    static func make(
        channel: CatalogItem, source: CatalogSource?, client: HTTPClient, fetchGate: FetchGate,
        resumePoint: LiveResumePoint
    ) -> LiveUpstream {
        let label = "channel \(channel.id) of source \(channel.sourceID)"
        return LiveUpstream(
            channelID: channel.id, sourceID: channel.sourceID, sourceName: source?.name, label: label
        ) { deliver in
            guard let text = channel.url, let first = URL(string: text) else {
                throw LiveUpstreamError("channel \(channel.id) has no URL that can be read")
            }
            // A file played to its end has nothing more to give: the session goes on to what
            // follows (an alternative, or its end) instead of playing it again.
            let point = resumePoint.file
            if let point, point.delivered >= point.length { return }
            let resuming = point.flatMap { $0.delivered > 0 ? $0 : nil }
            var request = HTTPClientRequest(url: first.absoluteString)
            for header in channel.headers { request.headers.add(name: header.name, value: header.value) }
            if !request.headers.contains(name: "User-Agent") {
                request.headers.add(name: "User-Agent", value: "Tuner")
            }
            if let resuming {
                // Only a 206 that continues the same file is taken (an If-Range that no longer
                // matches gets the new file whole, from its start).
                request.headers.replaceOrAdd(name: "Range", value: "bytes=\(resuming.delivered)-")
                if let validator = resuming.validator {
                    request.headers.replaceOrAdd(name: "If-Range", value: validator)
                }
            }
            // Redirects are followed by hand, not by the client, so every hop passes the fetch
            // policy's gate, and credentials never follow a redirect to another origin. No
            // deadline: the body never ends. A stall is the session's watchdog's to notice.
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, gate: fetchGate, deadline: .distantFuture).response
            } catch let error as FetchError {
                throw LiveUpstreamError(
                    "channel \(channel.id)'s stream leads to a URL this server may not fetch: \(error)")
            }
            guard (200..<300).contains(response.status.code) else {
                throw LiveUpstreamError("the provider answered HTTP \(response.status.code) for \(label)")
            }
            if let resuming, response.status == .partialContent {
                guard LiveResumePoint.continues(resuming, contentRange: response.headers.first(name: "Content-Range"))
                else {
                    throw LiveUpstreamError(
                        "the provider's part of \(label) does not continue it at byte \(resuming.delivered)")
                }
            } else {
                // The answer from its start: a file (with a length) or an endless stream.
                resumePoint.started(
                    length: response.status == .ok
                        ? response.headers.first(name: "Content-Length").flatMap { HeaderNumber.nonNegative($0) } : nil,
                    validator: IfRange.validator(
                        etag: response.headers.first(name: "ETag"),
                        lastModified: response.headers.first(name: "Last-Modified")))
            }
            for try await chunk in response.body {
                deliver(chunk)
                resumePoint.delivered(chunk.readableBytes)
            }
        }
    }

    /// The client live sessions use: redirects are followed by ``make`` (providers send live
    /// streams to a CDN), and it holds as many connections per host as there are channels open
    /// (the cache's client keeps 16), with no read timeout of its own.
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 1000)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
