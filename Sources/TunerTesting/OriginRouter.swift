import Crypto
import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

/// Decides the response to each request: the routes of `TestOrigin` and their faults.
struct OriginRouter {
    /// Size of `/files/<name>` when the query has no `size=`.
    static let defaultFileSize = 1 << 20

    /// Last-Modified of version 0 of every generated file (2024-01-01T00:00:00Z). Each version is
    /// an hour later, so an `If-Range` carrying a date also tells versions apart.
    static let firstModified = 1_704_067_200

    let state: OriginState

    /// A sink for the body of `PUT|POST /sink/<name>` (without `status=` in the query), or nil.
    static func sink(for request: HTTPRequestHead) -> UploadSink? {
        let target = RequestTarget(uri: request.uri)
        guard request.method == .PUT || request.method == .POST, target.query["status"] == nil,
            let name = target.path.removingPrefix("/sink/"), !name.isEmpty
        else { return nil }
        return UploadSink(
            name: RequestTarget.percentDecoded(name), method: request.method.rawValue,
            contentType: request.headers.first(name: "Content-Type"))
    }

    func plan(for request: HTTPRequestHead) -> ResponsePlan {
        var plan = route(request)
        plan.path = RequestTarget(uri: request.uri).path
        return plan
    }

    private func route(_ request: HTTPRequestHead) -> ResponsePlan {
        let target = RequestTarget(uri: request.uri)
        state.recordRequest(path: target.path, uri: request.uri, headers: request.headers.map { ($0.name, $0.value) })

        if let name = target.path.removingPrefix("/sink/"), !name.isEmpty,
            request.method == .PUT || request.method == .POST
        {
            if let status = target.query["status"].flatMap({ Int($0) }) {
                return errorPlan(status: status, faults: RequestedFaults(query: target.query), request: request)
            }
            return .text(.created, "stored\n", replyingTo: request)
        }
        guard request.method == .GET || request.method == .HEAD else {
            return .text(
                .methodNotAllowed, "method not allowed\n", replyingTo: request, headers: [("Allow", "GET, HEAD")])
        }
        let path = target.path
        if let name = path.removingPrefix("/files/"), !name.isEmpty {
            return filePlan(name: RequestTarget.percentDecoded(name), target: target, request: request)
        }
        if let relativePath = path.removingPrefix("/static/") {
            return staticPlan(relativePath: relativePath, target: target, request: request)
        }
        if let rest = path.removingPrefix("/live/") {
            return livePlan(rest: rest, target: target, request: request)
        }
        if let rest = path.removingPrefix("/redirect/") {
            return redirectChainPlan(rest: rest, target: target, request: request)
        }
        if path == "/redirect-to" {
            guard let url = target.query["url"], !url.isEmpty else {
                return .text(.badRequest, "missing url\n", replyingTo: request)
            }
            return redirect(to: url, request: request)
        }
        return .text(.notFound, "not found\n", replyingTo: request)
    }

    // MARK: Content

    private func filePlan(name: String, target: RequestTarget, request: HTTPRequestHead) -> ResponsePlan {
        let faults = RequestedFaults(query: target.query).forRequest(number: state.requests(path: target.path))
        let draw = faults.isEmpty ? state.drawFaults() : .none
        let version = state.versionForRequest(of: name, bumpingAfterwards: faults.flip)

        if let status = faults.status {
            return errorPlan(status: status, faults: faults, request: request)
        }
        if draw.serverError {
            return errorPlan(status: 503, faults: faults, request: request)
        }

        let size = target.query["size"].flatMap { Int($0) }.map { max(0, $0) } ?? Self.defaultFileSize
        let pattern = ContentPattern(name: name, version: version)
        let representation = Representation(
            etag: "\"\(pattern.tag)-\(size)\"",
            lastModified: HTTPDate.string(secondsSince1970: Self.firstModified + version * 3600),
            length: size,
            contentType: target.query["type"] ?? "video/mp4"
        )
        return contentPlan(representation, source: .generated(pattern), request: request, faults: faults, draw: draw)
    }

    private func staticPlan(relativePath: String, target: RequestTarget, request: HTTPRequestHead) -> ResponsePlan {
        let components = relativePath.split(separator: "/").map { RequestTarget.percentDecoded($0) }
        // Never serve outside the directory, even to a misbehaving proxy.
        guard let root = state.staticDirectory, !components.isEmpty,
            !components.contains(where: { $0 == ".." || $0 == "." || $0.contains("/") })
        else {
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let path = ([root] + components).joined(separator: "/")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue
        else {
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let digest = SHA256.hash(data: Array("\(path)\u{0}\(size)\u{0}\(modified)".utf8))
        let tag = digest.prefix(8).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let representation = Representation(
            etag: "\"\(tag)-\(size)\"",
            lastModified: HTTPDate.string(secondsSince1970: Int(modified.rounded(.down))),
            length: size,
            contentType: target.query["type"] ?? Self.contentType(forFileName: components.last ?? "")
        )
        let faults = RequestedFaults(query: target.query).forRequest(number: state.requests(path: target.path))
        if let status = faults.status {
            return errorPlan(status: status, faults: faults, request: request)
        }
        return contentPlan(representation, source: .file(path: path), request: request, faults: faults, draw: .none)
    }

    /// Headers, conditional requests, ranges and body faults, shared by generated and real files.
    func contentPlan(
        _ representation: Representation,
        source: BodySource,
        request: HTTPRequestHead,
        faults: RequestedFaults,
        draw: FaultDraw
    ) -> ResponsePlan {
        let keepAlive = request.isKeepAlive
        var headers = HTTPHeaders()
        headers.add(name: "Accept-Ranges", value: "bytes")
        headers.add(name: "ETag", value: representation.etag)
        headers.add(name: "Last-Modified", value: representation.lastModified)
        headers.add(name: "Content-Type", value: representation.contentType)
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        }

        if let ifNoneMatch = request.headers.first(name: "If-None-Match"),
            representation.matches(ifNoneMatch: ifNoneMatch)
        {
            return ResponsePlan(
                head: HTTPResponseHead(version: request.version, status: .notModified, headers: headers),
                source: .text(""),
                bodyRange: 0..<0,
                delay: faults.delay,
                ending: .complete(keepAlive: keepAlive)
            )
        }

        var rangeHeader = request.headers.first(name: "Range")
        if faults.ignoreRange || draw.ignoreRange {
            rangeHeader = nil
        }
        // If-Range: the client only wants the range if it still has the same version (RFC 9110 §13.1.5).
        if let ifRange = request.headers.first(name: "If-Range"),
            ifRange != representation.etag, ifRange != representation.lastModified
        {
            rangeHeader = nil
        }

        let status: HTTPResponseStatus
        let range: Range<Int>
        switch ByteRangeRequest(header: rangeHeader, length: representation.length) {
        case .whole:
            status = .ok
            range = 0..<representation.length
        case .partial(let partial):
            status = .partialContent
            range = partial
            headers.add(
                name: "Content-Range",
                value: "bytes \(partial.lowerBound)-\(partial.upperBound - 1)/\(representation.length)")
        case .unsatisfiable:
            return .text(
                .rangeNotSatisfiable,
                "range not satisfiable\n",
                replyingTo: request,
                headers: [("Content-Range", "bytes */\(representation.length)"), ("ETag", representation.etag)],
                delay: faults.delay
            )
        }

        if faults.chunked {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: String(range.count + (faults.extraDeclaredLength ?? 0)))
        }

        var bodyRange = range
        var ending = ResponsePlan.Ending.complete(keepAlive: keepAlive)
        if request.method == .HEAD {
            bodyRange = range.lowerBound..<range.lowerBound
        } else if let holdAfter = faults.holdAfter, holdAfter < range.count {
            bodyRange = range.lowerBound..<(range.lowerBound + holdAfter)
            ending = .hold
        } else if let resetAfter = faults.resetAfter ?? draw.resetFraction.map({ Int($0 * Double(range.count)) }),
            resetAfter < range.count
        {
            bodyRange = range.lowerBound..<(range.lowerBound + resetAfter)
            ending = .close(hard: faults.hardReset)
        } else if faults.extraDeclaredLength != nil {
            // The client waits for bytes that never come; closing is what tells it the length lied.
            ending = .close(hard: false)
        }

        return ResponsePlan(
            head: HTTPResponseHead(version: request.version, status: status, headers: headers),
            source: source,
            bodyRange: bodyRange,
            delay: faults.delay,
            drip: faults.drip,
            ending: ending
        )
    }

    func errorPlan(status: Int, faults: RequestedFaults, request: HTTPRequestHead) -> ResponsePlan {
        let responseStatus = HTTPResponseStatus(statusCode: status)
        var headers: [(String, String)] = []
        if let retryAfter = faults.retryAfter, status == 429 || status == 503 {
            headers.append(("Retry-After", String(retryAfter)))
        }
        return .text(
            responseStatus,
            "\(status) \(responseStatus.reasonPhrase)\n",
            replyingTo: request,
            headers: headers,
            delay: faults.delay
        )
    }

    // MARK: Redirects

    /// `/redirect/<n>/<rest>` points at `/redirect/<n-1>/<rest>`, and `/redirect/0/<rest>` at
    /// `/<rest>`, keeping the query, so a test can ask for a chain of any length.
    private func redirectChainPlan(rest: String, target: RequestTarget, request: HTTPRequestHead) -> ResponsePlan {
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let count = parts.first.flatMap({ Int($0) }), count >= 0 else {
            return .text(.notFound, "not found\n", replyingTo: request)
        }
        let remainder = parts.count > 1 ? String(parts[1]) : ""
        var location = count > 0 ? "/redirect/\(count - 1)/\(remainder)" : "/\(remainder)"
        if let query = target.rawQuery {
            location += "?\(query)"
        }
        return redirect(to: location, request: request)
    }

    private func redirect(to location: String, request: HTTPRequestHead) -> ResponsePlan {
        .text(.found, "redirecting to \(location)\n", replyingTo: request, headers: [("Location", location)])
    }

    // MARK: Helpers

    static func contentType(forFileName fileName: String) -> String {
        let parts = fileName.split(separator: ".")
        let pathExtension = parts.count > 1 ? parts[parts.count - 1].lowercased() : ""
        switch pathExtension {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "m3u": return "audio/x-mpegurl"
        case "ts": return "video/mp2t"
        case "mp4", "m4v": return "video/mp4"
        case "m4s": return "video/iso.segment"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "vtt": return "text/vtt"
        case "xml": return "application/xml"
        case "json": return "application/json"
        case "html": return "text/html; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
