import AsyncHTTPClient
import Catalog
import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

/// A channel's stream read straight from its provider, with the headers the playlist set.
enum LiveHTTPUpstream {
    static func make(
        channel: CatalogItem, source: CatalogSource?, client: HTTPClient, fetchPolicy: FetchPolicy
    ) -> LiveUpstream {
        let label = "channel \(channel.id) of source \(channel.sourceID)"
        return LiveUpstream(
            channelID: channel.id, sourceID: channel.sourceID, sourceName: source?.name, label: label
        ) { deliver in
            guard let text = channel.url, let url = URL(string: text), fetchPolicy.permits(url) else {
                throw LiveUpstreamError(
                    "channel \(channel.id)'s URL is not an http(s) URL this server may fetch (see --allow-fetch)")
            }
            var request = HTTPClientRequest(url: url.absoluteString)
            for header in channel.headers { request.headers.add(name: header.name, value: header.value) }
            if !request.headers.contains(name: "User-Agent") { request.headers.add(name: "User-Agent", value: "Tuner") }
            // No deadline: the body never ends. A stall is the session's watchdog's to notice.
            let response = try await client.execute(request, deadline: .distantFuture)
            guard (200..<300).contains(response.status.code) else {
                throw LiveUpstreamError("the provider answered HTTP \(response.status.code) for \(label)")
            }
            for try await chunk in response.body { deliver(chunk) }
        }
    }

    /// The client live sessions use: it follows redirects (providers send live streams to a
    /// CDN), and holds as many connections per host as there are channels open (the cache's
    /// client keeps 16), with no read timeout of its own.
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 10, allowCycles: false), timeout: .init(connect: .seconds(10)))
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 1000)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
