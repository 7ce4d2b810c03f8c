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

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.health) { _, _ in HealthAnswer(status: "ok") }
        router.add(.openAPI) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json)))
        }
        router.add(.proxyURLs, use: makeProxyURL)
        let admin = engine.cacheAdmin
        router.add(.cacheStats) { _, _ in CacheStatisticsAnswer(admin.statistics()) }
        router.add(.cacheClear) { _, _ in
            try admin.clear()
            return MessageAnswer(message: "cache cleared")
        }
        router.add(.cacheDelete) { _, _ in
            try admin.clear()
            return MessageAnswer(message: "cache cleared")
        }
        router.add(.cacheTrim) { request, context in
            // The body is optional: without one the cache is trimmed to its configured size.
            var request = request
            let raw = try await request.collectBody(upTo: 4096)
            let body =
                raw.readableBytes == 0
                ? TrimRequest()
                : try await decode(TrimRequest.self, request: request, context: context)
            return TrimResponse(try admin.trim(downTo: body.bytes))
        }
        router.add(.startPreload) { request, context in
            let body = try await decode(PreloadRequest.self, request: request, context: context)
            let job = try admin.startPreload(body)
            return EditedResponse(status: .accepted, response: PreloadJobAnswer(job))
        }
        router.add(.preloads) { _, _ in PreloadList(preloads: admin.preloadJobs.map(PreloadJobAnswer.init)) }
        router.add(.preload) { _, context in
            let id = try context.parameters.require("id")
            return PreloadJobAnswer(try admin.preload(id: id))
        }
        router.add(.cancelPreload) { _, context in
            let id = try context.parameters.require("id")
            try admin.cancelPreload(id: id)
            return MessageAnswer(message: "preload \(id) cancelled")
        }
        router.add(.cacheExport) { request, context in
            let body = try await decode(CacheResourceRequest.self, request: request, context: context)
            let path = try admin.export(body)
            return MessageAnswer(message: "exported to \(path)")
        }
        router.add(.cacheHistory) { _, _ in
            CacheHistoryAnswer(
                interval: Int(CacheHistory.interval), samples: admin.history.samples.map(CacheHistoryAnswer.Sample.init)
            )
        }
        router.add(.cachePins) { _, _ in PinList(pins: admin.pins().map(PinAnswer.init)) }
        router.add(.unpin) { _, context in
            let key = try context.parameters.require("key")
            try admin.unpin(key: key)
            return Response(status: .noContent)
        }
        router.add(.cachePin) { request, context in
            let body = try await decode(CacheResourceRequest.self, request: request, context: context)
            let pinned = try admin.pin(body)
            return MessageAnswer(message: pinned ? "pinned" : "unpinned")
        }
    }

    @Sendable func makeProxyURL(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        ProxyURLAnswer
    > {
        let body = try await decode(ProxyURLRequest.self, request: request, context: context)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let url = try engine.player.proxyURL(for: body.url, headers: body.headers, baseURL: base)
        return EditedResponse(status: .created, response: ProxyURLAnswer(proxyURL: url))
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
