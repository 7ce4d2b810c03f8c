import Foundation
import NIOCore
import Tus
import TusServer

/// Uploads received over tus (`/api/v1/uploads`) as the front ends use them: create one, learn
/// its offset, append bytes, remove it.
///
/// A feature object over the server's upload store (``TusUploadStore``): the controller keeps
/// the tus protocol (headers, statuses, checksums as words), this holds every call to the store,
/// so no controller touches it. The store's errors pass through as they are: each one's `kind`
/// is a tus answer (409 for a wrong offset, 460 for a checksum mismatch, …) only the protocol knows.
public final class Uploads: Sendable {
    let store: TusUploadStore

    public init(store: TusUploadStore) {
        self.store = store
    }

    /// The largest upload accepted, in bytes.
    public var maxSize: Int64 { store.configuration.maxSize }

    /// Creates an upload of `length` bytes (nil: declared later) with the client's metadata.
    public func create(length: Int64?, metadata: TusMetadata = TusMetadata()) throws -> TusUploadInfo {
        try store.create(length: length, metadata: metadata)
    }

    /// Upload `id` as it is on disk now (its offset, length and metadata).
    public func info(id: String) throws -> TusUploadInfo {
        try store.info(id: id)
    }

    /// Appends `body` to upload `id` at `offset`, streamed to disk (see
    /// ``TusUploadStore/append(to:at:declaringLength:checksum:body:)``).
    public func append<Body: AsyncSequence>(
        to id: String, at offset: Int64, declaringLength: Int64? = nil, checksum: TusChecksum? = nil, body: Body
    ) async throws -> TusUploadInfo where Body.Element == ByteBuffer {
        try await store.append(to: id, at: offset, declaringLength: declaringLength, checksum: checksum, body: body)
    }

    /// Removes upload `id` and its bytes.
    public func terminate(id: String) throws {
        try store.terminate(id: id)
    }

    /// When an unfinished upload expires, if uploads expire.
    public func expiry(of info: TusUploadInfo) -> Date? {
        store.expiry(of: info)
    }
}
