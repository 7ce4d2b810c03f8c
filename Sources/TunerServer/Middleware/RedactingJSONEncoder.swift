import Foundation
import HTTPTypes
import Hummingbird
import MediaFormats
import NIOCore

/// The JSON encoder of every API answer: ISO 8601 dates, sorted keys, and no provider secret in
/// any string (``JSONSecretRedactor``, which the live events use too), so no route can leak a
/// provider password by returning a model as it is stored: one place, for the routes of today
/// and those added later.
struct RedactingJSONEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let data = JSONSecretRedactor.redact(try Self.makeEncoder().encode(value))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
