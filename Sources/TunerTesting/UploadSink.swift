import Crypto
import Foundation

/// What `PUT|POST /sink/<name>` received: the body's length and SHA-256, never the body itself,
/// so tests can upload large files without the origin holding them.
public struct ReceivedUpload: Sendable, Hashable {
    public var method: String
    public var length: Int
    /// Lowercase hex.
    public var sha256: String
    public var contentType: String?
}

/// Hashes one request body as it arrives.
struct UploadSink {
    let name: String
    let method: String
    let contentType: String?
    private var hasher = SHA256()
    private(set) var length = 0

    init(name: String, method: String, contentType: String?) {
        self.name = name
        self.method = method
        self.contentType = contentType
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
        length += bytes.count
    }

    func finish() -> ReceivedUpload {
        ReceivedUpload(
            method: method, length: length, sha256: hasher.finalize().map { String(format: "%02x", $0) }.joined(),
            contentType: contentType)
    }
}
