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

    struct CacheHistoryAnswer: ResponseEncodable {
        /// Seconds per sample.
        var interval: Int
        var samples: [CacheHistory.Sample]
    }

    struct PinList: ResponseEncodable {
        var pins: [CacheAdmin.Pin]
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
        let admin = engine.cacheAdmin
        api.get("cache/stats") { _, _ in admin.statistics() }
        api.post("cache/clear") { _, _ in
            try await CatalogController.answering { try admin.clear() }
            return Message(message: "cache cleared")
        }
        api.delete("cache") { _, _ in
            try await CatalogController.answering { try admin.clear() }
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
            return TrimResponse(report: try await CatalogController.answering { try admin.trim(downTo: body.bytes) })
        }
        api.post("cache/preload") { request, context in
            let body = try await decode(PreloadRequest.self, request: request, context: context)
            let job = try await CatalogController.answering { try admin.startPreload(body) }
            return EditedResponse(status: .accepted, response: job)
        }
        api.get("cache/preloads") { _, _ in PreloadList(preloads: admin.preloadJobs) }
        api.get("cache/preloads/:id") { _, context in
            let id = try context.parameters.require("id")
            return try await CatalogController.answering { try admin.preload(id: id) }
        }
        api.delete("cache/preloads/:id") { _, context in
            let id = try context.parameters.require("id")
            try await CatalogController.answering { try admin.cancelPreload(id: id) }
            return Message(message: "preload \(id) cancelled")
        }
        api.post("cache/export") { request, context in
            let body = try await decode(CacheResourceRequest.self, request: request, context: context)
            let path = try await CatalogController.answering { try admin.export(body) }
            return Message(message: "exported to \(path)")
        }
        api.get("cache/history") { _, _ in
            CacheHistoryAnswer(interval: Int(CacheHistory.interval), samples: admin.history.samples)
        }
        api.get("cache/pins") { _, _ in PinList(pins: admin.pins()) }
        api.delete("cache/pins/:key") { _, context in
            let key = try context.parameters.require("key")
            try await CatalogController.answering { try admin.unpin(key: key) }
            return Response(status: .noContent)
        }
        api.post("cache/pin") { request, context in
            let body = try await decode(CacheResourceRequest.self, request: request, context: context)
            let pinned = try await CatalogController.answering { try admin.pin(body) }
            return Message(message: pinned ? "pinned" : "unpinned")
        }
    }

    @Sendable func makeProxyURL(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        ProxyURLResponse
    > {
        let body = try await decode(ProxyURLRequest.self, request: request, context: context)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let url = try await CatalogController.answering {
            try engine.player.proxyURL(for: body.url, headers: body.headers, baseURL: base)
        }
        return EditedResponse(status: .created, response: ProxyURLResponse(proxyURL: url))
    }

    private func decode<T: Decodable>(_ type: T.Type, request: Request, context: TunerRequestContext) async throws -> T
    {
        do {
            return try await request.decode(as: type, context: context)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
    }
}

extension CacheStatistics: ResponseEncodable {}
extension CacheAdmin.Statistics: ResponseEncodable {}
extension PreloadJobs.Job: ResponseEncodable {}
