import Foundation

/// Why a ``TusUploadStore`` operation failed. ``kind`` says which tus response it maps to.
public struct TusUploadStoreError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure; a struct so new ones never break a caller's `switch`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notFound, expired, offsetMismatch, locked, checksumMismatch, tooLarge, exceedsLength
            case lengthAlreadyDeclared, invalidArgument, storage
        }

        private let base: Base
        public var description: String { base.rawValue }

        /// No upload with this id (404).
        public static let notFound = Kind(base: .notFound)
        /// The upload expired and was removed (410).
        public static let expired = Kind(base: .expired)
        /// The client's offset is not the committed offset (409).
        public static let offsetMismatch = Kind(base: .offsetMismatch)
        /// Another request is writing this upload (423).
        public static let locked = Kind(base: .locked)
        /// The PATCH's bytes did not match its `Upload-Checksum`; they were discarded (460).
        public static let checksumMismatch = Kind(base: .checksumMismatch)
        /// Over the store's maximum size (413).
        public static let tooLarge = Kind(base: .tooLarge)
        /// More bytes than the upload's declared length (413).
        public static let exceedsLength = Kind(base: .exceedsLength)
        /// A deferred length was declared again, differently (400).
        public static let lengthAlreadyDeclared = Kind(base: .lengthAlreadyDeclared)
        /// A negative length or offset, or similar (400).
        public static let invalidArgument = Kind(base: .invalidArgument)
        /// The disk failed us: full, read-only, vanished files (500).
        public static let storage = Kind(base: .storage)
    }

    public let kind: Kind
    /// What failed and what to do, for logs and response bodies.
    public let description: String
    /// The committed offset after the failure, when the upload still exists.
    public let offset: Int64?

    public init(_ kind: Kind, _ description: String, offset: Int64? = nil) {
        self.kind = kind
        self.description = description
        self.offset = offset
    }
}
