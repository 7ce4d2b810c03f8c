import AsyncHTTPClient
import Fetching
import Foundation
import MediaFormats

/// A channel's stream read from the node of the cluster that holds its claim (its
/// `/internal/live/<channel>` answer, the holder's session joined at a keyframe). It uses no
/// provider connection of this node: the holder counts it.
enum LiveRelayUpstream {
    static func make(relay: LiveRelay, channelID: Int64, client: HTTPClient) -> LiveUpstream {
        LiveUpstream(
            channelID: channelID, sourceID: nil, sourceName: nil, label: "the relay of node \(relay.node)"
        ) { deliver in
            // Only the holder's advertised address and port: a relay is never sent anywhere else.
            let host = FetchPolicy.host(of: relay.url) ?? ""
            let gate = FetchGate(
                policy: FetchPolicy(presets: [], rules: [.host(host, port: FetchPolicy.port(of: relay.url))]))
            let response: EndlessStream
            do {
                response = try await EndlessStream.open(
                    url: relay.url, headers: [(relay.headerName, relay.headerValue)], resume: nil, client: client,
                    gate: gate)
            } catch let error as FetchError {
                throw LiveUpstreamError("node \(relay.node)'s relay cannot be reached: \(error)")
            }
            guard response.statusCode == 200 else {
                throw LiveUpstreamError("node \(relay.node)'s relay answered HTTP \(response.statusCode)")
            }
            for try await chunk in response.body { deliver(chunk) }
        }
    }
}
