import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MediaFormats
import NIOCore
import Transfers
import TunerAPI
import TunerApp
import Tus
import TusServer

/// Tuner's tus 1.0 endpoint at `/api/v1/uploads`: creation (also with an upload, or with a
/// deferred length), HEAD for the offset, PATCH, termination, checksums (sha1, md5, sha256) and
/// expiration (`Upload-Expires`). Cross-origin access is ``UploadsCORSMiddleware``'s.
///
/// Protocol only: bytes, offsets and durability are the upload store's, reached through TunerApp's
/// ``Uploads``. PATCH bodies stream from the socket to the store; nothing holds a whole body.
struct UploadsController {
    let uploads: Uploads
    let fallbackBaseURL: @Sendable () -> String
    let logger: Logger

    static let version = "1.0.0"
    static let extensions = "creation,creation-with-upload,creation-defer-length,termination,checksum,expiration"
    static let offsetContentType = "application/offset+octet-stream"

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.uploadOptions) { request, _ in options(request) }
        router.add(.uploadOptionsByID) { request, _ in options(request) }
        router.add(.createUpload, use: create)
        router.add(.uploadOffset, use: head)
        router.add(.appendUpload, use: patch)
        router.add(.removeUpload, use: terminate)
        // Clients behind proxies that only pass GET and POST send POST with
        // X-HTTP-Method-Override (tus-js-client's `overridePatchMethod`).
        router.add(.overriddenUpload, use: overridden)
    }

    // MARK: Handlers

    @Sendable func options(_ request: Request) -> Response {
        respond(.noContent, Self.capabilities(maxSize: uploads.maxSize))
    }

    /// What an OPTIONS answer says about this server (also in the CORS preflight's answer).
    static func capabilities(maxSize: Int64) -> HTTPFields {
        var headers = HTTPFields()
        headers[.tusResumable] = version
        headers[.tusVersion] = version
        headers[.tusExtension] = extensions
        headers[.tusMaxSize] = String(maxSize)
        headers[.tusChecksumAlgorithm] = TusChecksumAlgorithm.all.map(\.name).joined(separator: ",")
        return headers
    }

    @Sendable func create(request: Request, context: TunerRequestContext) async throws -> Response {
        if let refusal = checkResumable(request) { return refusal }
        let length: Int64?
        switch (request.headers[.uploadLength], request.headers[.uploadDeferLength]) {
        case (let text?, nil):
            guard let value = Self.parseNonNegative(text) else {
                return problem(.badRequest, "Upload-Length must be a whole number of bytes, got '\(text)'")
            }
            length = value
        case (nil, let text?):
            guard text.trimmingCharacters(in: .whitespaces) == "1" else {
                return problem(.badRequest, "Upload-Defer-Length must be 1, got '\(text)'")
            }
            length = nil
        case (nil, nil):
            return problem(.badRequest, "send Upload-Length (the file's size) or Upload-Defer-Length: 1")
        case (_?, _?):
            return problem(.badRequest, "send Upload-Length or Upload-Defer-Length, not both")
        }
        var metadata = TusMetadata()
        if let text = request.headers[.uploadMetadata], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let parsed = TusMetadata(header: text) else {
                return problem(
                    .badRequest, "Upload-Metadata must be comma-separated 'key base64value' pairs with distinct keys")
            }
            metadata = parsed
        }
        // creation-with-upload: a body with the offset content type is the first PATCH.
        let hasBody = request.headers[.contentType].map(Self.isOffsetStream) ?? false
        var checksum: TusChecksum?
        if hasBody {
            let parsed = parseChecksum(request)
            if let refusal = parsed.refusal { return refusal }
            checksum = parsed.checksum
        }
        var info: TusUploadInfo
        do {
            info = try uploads.create(length: length, metadata: metadata)
        } catch let error as TusUploadStoreError {
            return problem(for: error)
        }
        var headers = HTTPFields()
        headers[.location] = location(of: info.id, request: request)
        if hasBody {
            do {
                info = try await uploads.append(to: info.id, at: 0, checksum: checksum, body: request.body)
            } catch let error as TusUploadStoreError {
                // The upload exists; the client resumes it with HEAD at the Location.
                logger.info(
                    "creation-with-upload body refused", metadata: ["upload": "\(info.id)", "error": "\(error)"])
            } catch {
                logger.info(
                    "creation-with-upload body ended early", metadata: ["upload": "\(info.id)", "error": "\(error)"])
            }
            info = (try? uploads.info(id: info.id)) ?? info
            headers[.uploadOffset] = String(info.offset)
        }
        addExpiry(info, to: &headers)
        return respond(.created, headers)
    }

    @Sendable func head(request: Request, context: TunerRequestContext) async throws -> Response {
        if let refusal = checkResumable(request) { return refusal }
        let id = try context.parameters.require("id")
        let info: TusUploadInfo
        do {
            info = try uploads.info(id: id)
        } catch let error as TusUploadStoreError {
            return problem(for: error, bodyless: true)
        }
        var headers = HTTPFields()
        headers[.uploadOffset] = String(info.offset)
        if let length = info.length {
            headers[.uploadLength] = String(length)
        } else {
            headers[.uploadDeferLength] = "1"
        }
        if !info.metadata.entries.isEmpty { headers[.uploadMetadata] = info.metadata.headerValue }
        headers[.cacheControl] = "no-store"
        addExpiry(info, to: &headers)
        return respond(.ok, headers)
    }

    @Sendable func patch(request: Request, context: TunerRequestContext) async throws -> Response {
        if let refusal = checkResumable(request) { return refusal }
        let id = try context.parameters.require("id")
        guard let type = request.headers[.contentType], Self.isOffsetStream(type) else {
            return problem(.unsupportedMediaType, "PATCH needs Content-Type: \(Self.offsetContentType)")
        }
        guard let offsetText = request.headers[.uploadOffset] else {
            return problem(.badRequest, "PATCH needs Upload-Offset (send HEAD to learn it)")
        }
        guard let offset = Self.parseNonNegative(offsetText) else {
            return problem(.badRequest, "Upload-Offset must be a whole number of bytes, got '\(offsetText)'")
        }
        var declared: Int64?
        if let text = request.headers[.uploadLength] {
            guard let value = Self.parseNonNegative(text) else {
                return problem(.badRequest, "Upload-Length must be a whole number of bytes, got '\(text)'")
            }
            declared = value
        }
        let parsed = parseChecksum(request)
        if let refusal = parsed.refusal { return refusal }
        let checksum = parsed.checksum
        do {
            let info = try await uploads.append(
                to: id, at: offset, declaringLength: declared, checksum: checksum, body: request.body)
            var headers = HTTPFields()
            headers[.uploadOffset] = String(info.offset)
            addExpiry(info, to: &headers)
            return respond(.noContent, headers)
        } catch let error as TusUploadStoreError {
            return problem(for: error)
        } catch {
            // The body broke off (the client went away): the store kept what was synced. Any
            // answer is for a client that is probably gone; it says where to resume.
            let offset = (try? uploads.info(id: id).offset).map(String.init) ?? "unknown"
            return problem(
                .badRequest, "the request body ended with an error (\(error)); resume from Upload-Offset \(offset)")
        }
    }

    @Sendable func terminate(request: Request, context: TunerRequestContext) async throws -> Response {
        if let refusal = checkResumable(request) { return refusal }
        let id = try context.parameters.require("id")
        do {
            try uploads.terminate(id: id)
        } catch let error as TusUploadStoreError {
            return problem(for: error)
        }
        return respond(.noContent, HTTPFields())
    }

    @Sendable func overridden(request: Request, context: TunerRequestContext) async throws -> Response {
        switch request.headers[.xHTTPMethodOverride]?.uppercased() {
        case "PATCH": return try await patch(request: request, context: context)
        case "DELETE": return try await terminate(request: request, context: context)
        case "HEAD": return try await head(request: request, context: context)
        case let other?:
            return problem(
                .methodNotAllowed, "X-HTTP-Method-Override '\(other)' is not supported here; use PATCH, DELETE or HEAD")
        case nil:
            return problem(
                .methodNotAllowed,
                """
                POST creates uploads at /api/v1/uploads; an upload URL takes HEAD, PATCH or DELETE (or POST with \
                X-HTTP-Method-Override)
                """
            )
        }
    }

    // MARK: Helpers

    /// Every request but OPTIONS must speak our version; otherwise 412 says which one we speak.
    private func checkResumable(_ request: Request) -> Response? {
        let sent = request.headers[.tusResumable]?.trimmingCharacters(in: .whitespaces)
        guard sent != Self.version else { return nil }
        var headers = HTTPFields()
        headers[.tusVersion] = Self.version
        let message =
            sent.map { "Tus-Resumable \($0) is not supported; this server speaks \(Self.version)" }
            ?? "send Tus-Resumable: \(Self.version) (this is a tus 1.0 endpoint)"
        return respond(.preconditionFailed, headers, message: message)
    }

    /// The request's `Upload-Checksum`, or the 400 that refuses it.
    private func parseChecksum(_ request: Request) -> (checksum: TusChecksum?, refusal: Response?) {
        guard let text = request.headers[.uploadChecksum] else { return (nil, nil) }
        switch TusChecksum.parse(header: text) {
        case .success(let checksum): return (checksum, nil)
        case .failure(.unsupportedAlgorithm(let name)):
            return (
                nil,
                problem(
                    .badRequest,
                    """
                    checksum algorithm '\(name)' is not supported; use one of \
                    \(TusChecksumAlgorithm.all.map(\.name).joined(separator: ", "))
                    """
                )
            )
        case .failure(.malformed):
            return (nil, problem(.badRequest, "Upload-Checksum must be '<algorithm> <base64 digest>'"))
        }
    }

    /// The upload's URL through the address the client used (Host), with its access token when
    /// the client put it in the query, so the Location works wherever the client stands.
    private func location(of id: String, request: Request) -> String {
        let scheme = request.headers[.xForwardedProto].flatMap { $0 == "https" ? "https" : nil } ?? "http"
        let base = request.head.authority.map { "\(scheme)://\($0)" } ?? fallbackBaseURL()
        var url = "\(base)/api/v1/uploads/\(id)"
        if let token = request.uri.queryParameters["token"] {
            url += "?token=" + (String(token).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        return url
    }

    private func addExpiry(_ info: TusUploadInfo, to headers: inout HTTPFields) {
        guard let expiresAt = uploads.expiry(of: info) else { return }
        headers[.uploadExpires] = Self.httpDate(expiresAt)
    }

    private func respond(
        _ status: HTTPResponse.Status, _ headers: HTTPFields, message: String? = nil, bodyless: Bool = false
    ) -> Response {
        var fields = headers
        fields[.tusResumable] = Self.version
        guard let message, !bodyless else {
            if status != .noContent { fields[.contentLength] = "0" }
            return Response(status: status, headers: fields)
        }
        fields[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    private func problem(_ status: HTTPResponse.Status, _ message: String) -> Response {
        respond(status, HTTPFields(), message: message)
    }

    private func problem(for error: TusUploadStoreError, bodyless: Bool = false) -> Response {
        let status: HTTPResponse.Status =
            switch error.kind {
            case .notFound: .notFound
            case .expired: .gone
            case .offsetMismatch: .conflict
            case .locked: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
            case .checksumMismatch: HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")
            case .tooLarge, .exceedsLength: .contentTooLarge
            case .storage: .internalServerError
            default: .badRequest
            }
        if error.kind == .storage { logger.error("upload storage failed", metadata: ["error": "\(error)"]) }
        var headers = HTTPFields()
        // Tells the client where it stands without another HEAD.
        if let offset = error.offset { headers[.uploadOffset] = String(offset) }
        return respond(status, headers, message: error.description, bodyless: bodyless)
    }

    static func isOffsetStream(_ contentType: String) -> Bool {
        contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == offsetContentType
    }

    /// A header holding a byte count: digits only (no sign, no spaces inside), within Int64.
    static func parseNonNegative(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 19, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(trimmed)
    }

    static func httpDate(_ date: Date) -> String {
        HTTPDate.string(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let tusMaxSize = Self("Tus-Max-Size")!
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    static let uploadLength = Self("Upload-Length")!
    static let uploadDeferLength = Self("Upload-Defer-Length")!
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadChecksum = Self("Upload-Checksum")!
    static let uploadExpires = Self("Upload-Expires")!
    static let xHTTPMethodOverride = Self("X-HTTP-Method-Override")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
