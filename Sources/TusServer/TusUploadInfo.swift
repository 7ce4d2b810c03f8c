import Foundation
import Tus

/// What the server knows of one tus upload: the committed offset, the declared length and the
/// client's metadata. Stored as `<id>.info` (JSON) beside the upload's bytes.
public struct TusUploadInfo: Sendable, Hashable, Codable {
    /// The upload's id: 22 URL-safe characters, random.
    public var id: String
    /// The total size, or nil while the client defers it (creation-defer-length).
    public var length: Int64?
    /// Bytes received, written and synced to disk. Never more than what is durable.
    public var offset: Int64
    public var metadata: TusMetadata
    public var createdAt: Date
    /// When an unfinished upload is removed; nil when uploads never expire.
    public var expiresAt: Date?

    /// The file name from the metadata (last path component only), if the client sent one.
    public var filename: String? { metadata.filename }

    /// True once every declared byte is committed; the bytes are then at ``TusUploadStore/completedPath(of:)``.
    public var isComplete: Bool { length.map { offset == $0 } ?? false }
}
