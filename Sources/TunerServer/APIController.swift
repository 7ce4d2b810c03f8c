import Foundation
import Hummingbird
import MediaCache
import TunerAPI
import TunerApp

/// The JSON API under `/api/v1`.
struct APIController {
    let engine: TunerEngine
    /// The base URL proxy URLs use when the request has no Host header.
    let fallbackBaseURL: @Sendable () -> String

    struct ProxyURLRequest: Decodable {
        var url: String
        var headers: [String: String]?
    }

    struct ProxyURLResponse: ResponseEncodable {
        var proxyURL: String
    }

    struct Health: ResponseEncodable {
        var status: String
    }

    /// The cache's statistics plus what the proxy served per kind of stream.
    struct StatsResponse: ResponseEncodable {
        var cache: CacheStatistics
        var streams: [String: StreamService.StreamCounters]

        enum Keys: String, CodingKey { case streams }

        func encode(to encoder: any Encoder) throws {
            try cache.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(streams, forKey: .streams)
        }
    }

    /// What a trim did, and how long the eviction took.
    struct TrimResponse: ResponseEncodable {
        var report: MediaCache.TrimReport

        func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }
    }

    struct PreloadList: ResponseEncodable {
        var preloads: [PreloadJobs.Job]
    }

    struct Message: ResponseEncodable {
        var message: String
    }

    func addRoutes(to router: Router<TunerRequestContext>) {
        let api = router.group("/api/v1")
        api.get("health") { _, _ in Health(status: "ok") }
        api.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json)))
        }
        api.post("proxy-urls", use: makeProxyURL)
        api.get("cache/stats") { _, _ in
            StatsResponse(cache: engine.cache.statistics(), streams: engine.streams.statistics)
        }
        api.post("cache/clear") { _, _ in
            try engine.cache.clear()
            return Message(message: "cache cleared")
        }
        api.delete("cache") { _, _ in
            try engine.cache.clear()
            return Message(message: "cache cleared")
        }
        api.post("cache/trim") { request, context in
            // The body is optional: without one the cache is trimmed to its configured size.
            var request = request
            let raw = try await request.collectBody(upTo: 4096)
            let body =
                raw.readableBytes == 0
                ? TrimRequest()
                : try await decode(TrimRequest.self, request: request, context: context)
            let budget = body.bytes ?? engine.cache.configuration.maxBytes
            guard budget >= 0 else { throw HTTPError(.badRequest, message: "bytes must not be negative") }
            return TrimResponse(report: engine.cache.trim(downTo: budget))
        }
        api.post("cache/preload", use: startPreload)
        api.get("cache/preloads") { _, _ in PreloadList(preloads: engine.preloads.all) }
        api.get("cache/preloads/:id") { _, context in
            let id = try context.parameters.require("id")
            guard let job = engine.preloads.job(id: id) else {
                throw HTTPError(.notFound, message: "no preload with id \(id)")
            }
            return job
        }
        api.delete("cache/preloads/:id") { _, context in
            let id = try context.parameters.require("id")
            guard engine.preloads.cancel(id: id) else {
                throw HTTPError(.notFound, message: "no preload with id \(id)")
            }
            return Message(message: "preload \(id) cancelled")
        }
        api.post("cache/export", use: export)
        api.post("cache/pin", use: pin)
    }

    @Sendable func makeProxyURL(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        ProxyURLResponse
    > {
        let body = try await decode(ProxyURLRequest.self, request: request, context: context)
        let link = try streamLink(url: body.url, headers: body.headers)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        do {
            let url = try engine.signer.proxyURL(for: link, baseURL: base)
            return EditedResponse(status: .created, response: ProxyURLResponse(proxyURL: url))
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
    }

    @Sendable func startPreload(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        PreloadJobs.Job
    > {
        let body = try await decode(PreloadRequest.self, request: request, context: context)
        if let bytes = body.bytes, bytes <= 0 { throw HTTPError(.badRequest, message: "'bytes' must be positive") }
        if let seconds = body.seconds, !(seconds > 0) {
            throw HTTPError(.badRequest, message: "'seconds' must be positive")
        }
        if let segments = body.segments, segments <= 0 {
            throw HTTPError(.badRequest, message: "'segments' must be positive")
        }
        if body.bytes != nil && (body.seconds != nil || body.segments != nil) {
            throw HTTPError(
                .badRequest, message: "give 'bytes' for a file, or 'seconds'/'segments' for an HLS stream, not both")
        }
        let link = try streamLink(url: body.url, headers: body.headers)
        do {
            if body.seconds != nil || body.segments != nil {
                return EditedResponse(
                    status: .accepted,
                    response: try engine.preloads.startHLS(
                        link: link, seconds: body.seconds, segments: body.segments, maxBandwidth: body.maxBandwidth))
            }
            return EditedResponse(
                status: .accepted, response: try engine.preloads.start(link: link, byteCount: body.bytes))
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
    }

    @Sendable func export(request: Request, context: TunerRequestContext) async throws -> Message {
        let body = try await decode(CacheResourceRequest.self, request: request, context: context)
        guard let requested = body.path, requested.hasPrefix("/") else {
            throw HTTPError(.badRequest, message: "'path' must be an absolute file path")
        }
        guard let url = URL(string: body.url) else { throw HTTPError(.badRequest, message: "'url' is not a URL") }
        let path: String
        do {
            path = try engine.localFiles.fileToWrite(requested)
        } catch {
            throw HTTPError(.forbidden, message: error.description)
        }
        do {
            try engine.cache.export(url: url, to: path)
        } catch {
            throw HTTPError(.conflict, message: "\(error)")
        }
        return Message(message: "exported to \(path)")
    }

    @Sendable func pin(request: Request, context: TunerRequestContext) async throws -> Message {
        let body = try await decode(CacheResourceRequest.self, request: request, context: context)
        guard let url = URL(string: body.url) else { throw HTTPError(.badRequest, message: "'url' is not a URL") }
        let pinned = body.pinned ?? true
        try engine.cache.setPinned(pinned, url: url)
        return Message(message: pinned ? "pinned" : "unpinned")
    }

    private func decode<T: Decodable>(_ type: T.Type, request: Request, context: TunerRequestContext) async throws -> T
    {
        do {
            return try await request.decode(as: type, context: context)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, message: "the request body is not the expected JSON: \(error)")
        }
    }

    private func streamLink(url text: String, headers: [String: String]?) throws -> StreamLink {
        guard let url = URL(string: text) else { throw HTTPError(.badRequest, message: "'\(text)' is not a URL") }
        let link = StreamLink(
            url: url,
            headers: (headers ?? [:]).sorted { $0.key < $1.key }.map { StreamHeader(name: $0.key, value: $0.value) })
        do {
            try link.validate()
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        // Minting or preloading a URL the server may not fetch from would only fail later.
        let policy = engine.configuration.allowFetch
        guard policy.permits(url) else { throw HTTPError(.forbidden, message: policy.refusal(text)) }
        return link
    }
}

extension CacheStatistics: ResponseEncodable {}
extension PreloadJobs.Job: ResponseEncodable {}
