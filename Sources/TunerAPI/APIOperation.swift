/// One operation of the API under `/api/v1`: its method, path template, scope, the bodies it takes
/// and answers, and what it does. ``APIOperation/all`` is the one list the server registers its
/// routes from, `openapi.json` and `docs/guide/api.md` are checked against, and the web app reads
/// its paths from; clients call it through ``APIEndpoint``.
public struct APIOperation: Hashable, Sendable, CustomStringConvertible {
    /// How the operation's bodies are carried, which says where it is described in full.
    public enum Style: String, Hashable, Sendable {
        /// JSON in, JSON (or nothing, or a redirect) out; an operation of `openapi.json`.
        case json
        /// A WebSocket upgrade (`GET` with `Upgrade: websocket`); its messages are ServerLink's.
        case webSocket
        /// The tus 1.0 resumable upload protocol (its own headers and bodies, not OpenAPI's).
        case tus
    }

    /// A name for the operation, like `cacheStats` (the web app's `paths.cacheStats`).
    public let name: String
    /// The HTTP method, like `GET`.
    public let method: String
    /// The path template, like `/api/v1/transfers/{id}`: a `{name}` segment is a parameter.
    public let path: String
    /// The least scope a credential needs (decided by the server's access rule; a test keeps the two equal).
    public let scope: APIScope
    /// The request body's type, if the operation takes one.
    public let request: String?
    /// The answer body's type, if the answer has a JSON body.
    public let answer: String?
    /// One line saying what the operation does.
    public let summary: String
    /// How its bodies are carried.
    public let style: Style

    init(
        _ name: String, _ method: String, _ path: String, _ scope: APIScope, request: String? = nil,
        answer: String? = nil, style: Style = .json, _ summary: String
    ) {
        self.name = name
        self.method = method
        self.path = APIEndpoint.prefix + path
        self.scope = scope
        self.request = request
        self.answer = answer
        self.summary = summary
        self.style = style
    }

    public var description: String { "\(method) \(path)" }

    /// The names of the path's parameters, in order: `["id"]` for `/api/v1/transfers/{id}`.
    public var parameters: [String] {
        segments.compactMap { Self.parameterName($0) }
    }

    /// The path's segments after the first `/`.
    public var segments: [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    /// The path with each parameter replaced by the next of `values`, escaped as one segment.
    public func path(_ values: [String]) -> String {
        var values = values[...]
        let filled = segments.map { segment in
            Self.parameterName(segment) == nil ? segment : Self.escaped(values.popFirst() ?? "")
        }
        return "/" + filled.joined(separator: "/")
    }

    /// `id` for `{id}`, nil for a literal segment.
    public static func parameterName(_ segment: String) -> String? {
        guard segment.count > 2, segment.hasPrefix("{"), segment.hasSuffix("}") else { return nil }
        return String(segment.dropFirst().dropLast())
    }

    /// An id from outside as one path segment: unreserved characters only.
    static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
