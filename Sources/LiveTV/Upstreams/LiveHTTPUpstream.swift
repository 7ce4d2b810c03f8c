import AsyncHTTPClient
import Catalog
import Fetching
import Foundation
import MediaFormats
import NIOCore

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
            // Only a 206 that continues the same file is taken (an If-Range that no longer
            // matches gets the new file whole, from its start).
            let resume = resuming.map { EndlessStream.Resume(offset: $0.delivered, validator: $0.validator) }
            let response: EndlessStream
            do {
                response = try await EndlessStream.open(
                    url: first, headers: channel.headers.map { ($0.name, $0.value) }, resume: resume, client: client,
                    gate: fetchGate)
            } catch let error as FetchError {
                throw LiveUpstreamError(
                    "channel \(channel.id)'s stream leads to a URL this server may not fetch: \(error)")
            }
            guard (200..<300).contains(response.statusCode) else {
                throw LiveUpstreamError("the provider answered HTTP \(response.statusCode) for \(label)")
            }
            if let resuming, response.statusCode == 206 {
                guard LiveResumePoint.continues(resuming, contentRange: response.contentRange) else {
                    throw LiveUpstreamError(
                        "the provider's part of \(label) does not continue it at byte \(resuming.delivered)")
                }
            } else {
                // The answer from its start: a file (with a length) or an endless stream.
                resumePoint.started(
                    length: response.statusCode == 200
                        ? response.contentLength.flatMap { HeaderNumber.nonNegative($0) } : nil,
                    validator: IfRange.validator(etag: response.etag, lastModified: response.lastModified))
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
