import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TunerAPI
import TunerApp

/// The lineup editor over HTTP, for `admin` only: a profile's list (`GET /api/v1/outputs/{id}/lineup`),
/// "select all" (`…/lineup/identities`), a change (`POST …/lineup`) and logo uploads
/// (`POST /api/v1/logos`); and the uploaded logos themselves at `/logos/<name>`, open to players
/// as provider logos are (their names are their content's SHA-256).
struct LineupController {
    let editor: LineupEditor
    let fallbackBaseURL: @Sendable () -> String
    let configuredBaseURL: String?

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.outputLineup, use: page)
        router.add(.outputLineupIdentities) { [editor] request, context in
            try await editor.identities(
                profileID: try context.parameters.require("id"), filter: try Self.filter(request))
        }
        router.add(.changeOutputLineup) { [editor] request, context in
            let change: LineupChangeRequest
            do {
                change = try await request.decode(as: LineupChangeRequest.self, context: context)
            } catch {
                throw FeatureError(.invalid, "the request body is not a lineup change as JSON: \(error)")
            }
            return try await editor.change(profileID: try context.parameters.require("id"), change)
        }
        router.add(.acceptLineupGuides) { [editor] request, context in
            let wanted: LineupGuidesRequest
            do {
                wanted = try await request.decode(as: LineupGuidesRequest.self, context: context)
            } catch {
                throw FeatureError(.invalid, "the request body must be {\"identities\":[…]}: \(error)")
            }
            return try await editor.acceptBestGuides(
                profileID: try context.parameters.require("id"), identities: wanted.identities)
        }
        router.add(.uploadLogo, use: upload)
        router.get("/logos/:name", use: logo)
        router.head("/logos/:name", use: logo)
    }

    @Sendable func page(request: Request, context: TunerRequestContext) async throws -> LineupPage {
        let query = request.uri.queryParameters
        func number(_ name: String, default value: Int) throws -> Int {
            guard let text = query[Substring(name)], !text.isEmpty else { return value }
            guard let number = Int(text) else { throw FeatureError(.invalid, "\(name) must be a whole number") }
            return number
        }
        let base = OutputController.base(request, configured: configuredBaseURL, fallback: fallbackBaseURL)
        return try await editor.page(
            profileID: try context.parameters.require("id"), filter: try Self.filter(request),
            offset: try number("offset", default: 0), limit: try number("limit", default: 100), base: base)
    }

    @Sendable func upload(request: Request, context: TunerRequestContext) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: ChannelLogoLimit.bytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw FeatureError(.tooLarge, "a logo must have at most 1 MiB; make the image smaller")
        }
        let (answer, created) = try await editor.uploadLogo(Array(buffer: body))
        return try EditedResponse(status: created ? .created : .ok, response: answer)
            .response(from: request, context: context)
    }

    @Sendable func logo(request: Request, context: TunerRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        guard let (bytes, contentType) = try await editor.logo(named: name) else {
            throw FeatureError(.notFound, "no logo was uploaded as \(name)")
        }
        var headers = HTTPFields()
        headers[.contentType] = contentType
        // The name is the content's hash: it never changes.
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.contentLength] = String(bytes.count)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        return Response(status: .ok, headers: headers, body: body)
    }

    static func filter(_ request: Request) throws -> LineupEditor.Filter {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        return try LineupEditor.Filter(query: query)
    }
}

/// The largest upload `POST /api/v1/logos` reads.
enum ChannelLogoLimit {
    static let bytes = 1_048_576
}

extension LineupPage: ResponseEncodable {}
extension LineupIdentities: ResponseEncodable {}
extension LineupChangeAnswer: ResponseEncodable {}
extension LogoAnswer: ResponseEncodable {}
extension LineupGuidesAnswer: ResponseEncodable {}
