import MediaCache
import Streaming

/// The stream proxy as the front ends use it: a signed proxy URL read back into its link, and
/// the link's bytes served through the cache (playlists rewritten, segments pre-fetched).
///
/// A feature object over the stream engine (``StreamService``) and the signer: controllers call
/// it, never the engine, and its errors are ``FeatureError``s. It adds no work per request: each
/// call is the engine's own.
public final class StreamProxy: Sendable {
    let streams: StreamService
    let signer: StreamLinkSigner

    public init(streams: StreamService, signer: StreamLinkSigner) {
        self.streams = streams
        self.signer = signer
    }

    /// The link a proxy URL's signature and payload carry: forbidden for one this Tuner did not
    /// sign, invalid for one that cannot be read.
    public func link(signature: some StringProtocol, payload: some StringProtocol) throws(FeatureError) -> StreamLink {
        try FeatureError.streaming { () throws(StreamError) in
            try signer.verify(signature: signature, payload: payload)
        }
    }

    /// The proxy URL that plays `link` on the server at `baseURL`.
    public func proxyURL(for link: StreamLink, baseURL: String) throws(FeatureError) -> String {
        try FeatureError.streaming { () throws(StreamError) in try signer.proxyURL(for: link, baseURL: baseURL) }
    }

    /// Serves one request of a proxy URL: the engine's
    /// ``StreamService/serve(link:method:range:ifRange:requestID:proxyBase:atStreamPath:)``, as it is.
    public func serve(
        link: StreamLink, method: MediaRequest.Method, range: String?, ifRange: String?, requestID: String,
        proxyBase: String, atStreamPath: Bool = false
    ) async -> MediaResponse {
        await streams.serve(
            link: link, method: method, range: range, ifRange: ifRange, requestID: requestID, proxyBase: proxyBase,
            atStreamPath: atStreamPath)
    }

    /// Serves segment `number` of the rewritten media playlist `playlist`.
    public func serveSegment(
        of playlist: StreamLink, number: Int, method: MediaRequest.Method, range: String?, ifRange: String?,
        requestID: String
    ) async -> MediaResponse {
        await streams.serveSegment(
            of: playlist, number: number, method: method, range: range, ifRange: ifRange, requestID: requestID)
    }
}
