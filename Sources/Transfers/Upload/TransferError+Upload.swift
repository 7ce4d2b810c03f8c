import AsyncHTTPClient
import Foundation
import MediaFormats
import NIOCore
import NIOHTTP1

extension TransferError {
    /// A failure of an upload step that the server answered with `status`.
    static func http(
        _ operation: Operation, url: String, status: Int, headers: HTTPHeaders, body: ByteBuffer?, expected: String
    ) -> TransferError {
        let text = body.map { String(buffer: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        let said = text.isEmpty ? "" : ": \(text.prefix(300))"
        return TransferError(
            .httpStatus, operation: operation, url: url, status: status,
            retryAfter: headers.first(name: "Retry-After").flatMap(parseRetryAfter),
            serverOffset: headers.first(name: "Upload-Offset").flatMap { HeaderNumber.nonNegative($0) },
            "expected \(expected), the server answered \(status)\(said)")
    }

    /// An upload request that got no answer: refused, reset, timed out. Always transient.
    static func network(_ operation: Operation, url: String, error: any Error) -> TransferError {
        TransferError(
            .transport, operation: operation, url: url, underlying: error,
            "no answer from the server; try again later")
    }

    /// A server answer that makes no sense for the protocol (a missing header, say).
    static func protocolViolation(_ operation: Operation, url: String, status: Int?, _ message: String)
        -> TransferError
    {
        TransferError(
            .protocolViolation, errorClass: .permanent, operation: operation, url: url, status: status, message)
    }

    /// A local file of an upload that cannot be read as it should.
    static func unreadable(path: String, _ message: String) -> TransferError {
        TransferError(.fileSystem, operation: .readFile, url: path, message)
    }
}
