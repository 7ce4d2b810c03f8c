import Foundation
import MediaFormats
import NIOHTTP1

/// What the origin said about a resource: enough to serve it from disk and to tell whether a later
/// response is the same version.
public struct ResourceMeta: Sendable, Equatable, Codable {
    public var length: Int64
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?

    public init(length: Int64, etag: String? = nil, lastModified: String? = nil, contentType: String? = nil) {
        self.length = length
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }

    /// The validator for `If-Range`: a strong ETag, else Last-Modified (RFC 9110 §13.1.5).
    var ifRangeValidator: String? {
        IfRange.validator(etag: etag, lastModified: lastModified)
    }

    /// Whether `other` describes the same version of the resource.
    func isSameVersion(as other: ResourceMeta) -> Bool {
        guard length == other.length else { return false }
        if let etag, let otherTag = other.etag { return etag == otherTag }
        if let lastModified, let otherDate = other.lastModified { return lastModified == otherDate }
        return true
    }
}

/// How an origin response maps onto a resource: where its body starts and what it says of the
/// whole resource. `meta == nil` means the length is unknown, so the response cannot be cached.
struct ResponseLayout: Sendable {
    var bodyStart: Int64
    var bodyLength: Int64?
    var meta: ResourceMeta?

    init(status: Int, headers: HTTPHeaders) {
        let etag = headers.first(name: "ETag")
        let lastModified = headers.first(name: "Last-Modified")
        let contentType = headers.first(name: "Content-Type")
        let contentLength = headers.first(name: "Content-Length").flatMap {
            Self.decimal($0.trimmingCharacters(in: .whitespaces))
        }
        bodyLength = contentLength
        bodyStart = 0
        meta = nil
        if status == 206 {
            guard let value = headers.first(name: "Content-Range"), let parsed = Self.parseContentRange(value) else {
                return
            }
            bodyStart = parsed.first
            bodyLength = parsed.last - parsed.first + 1  // parseContentRange keeps last < Int64.max
            if let total = parsed.total {
                meta = ResourceMeta(length: total, etag: etag, lastModified: lastModified, contentType: contentType)
            }
        } else if status == 200, let contentLength {
            meta = ResourceMeta(length: contentLength, etag: etag, lastModified: lastModified, contentType: contentType)
        }
        // A compressed body's bytes are not the resource's bytes at those offsets.
        if let encoding = headers.first(name: "Content-Encoding")?.lowercased(), encoding != "identity" {
            meta = nil
        }
    }

    /// Parses `bytes a-b/total` (total may be `*`).
    static func parseContentRange(_ value: String) -> (first: Int64, last: Int64, total: Int64?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let rest = trimmed.dropFirst(6)
        let parts = rest.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = decimal(bounds[0]), let last = decimal(bounds[1]), first <= last,
            last < Int64.max
        else { return nil }
        let total: Int64? = parts[1] == "*" ? nil : decimal(parts[1])
        if parts[1] != "*" && total == nil { return nil }
        if let total, last >= total { return nil }
        return (first, last, total)
    }

    /// A non-negative decimal of ASCII digits only: `Int64("+5")` and `Int64("-5")` succeed, and an
    /// origin's number must be neither.
    static func decimal(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
        return Int64(text)
    }
}
