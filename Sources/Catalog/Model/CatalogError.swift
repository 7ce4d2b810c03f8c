/// Why a catalog operation failed: a `kind` each front end turns into its own answer, what failed
/// and what to do, and the id or byte counts it is about.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is; each front end turns it into its own answer.
    public enum Kind: Sendable, Hashable {
        /// No such source or item (HTTP 404).
        case notFound
        /// The operation does not apply to this item or source (HTTP 409).
        case unsupported
        /// The provider failed or sent something unusable (HTTP 502); the old data is kept.
        case fetchFailed
    }

    public let kind: Kind
    /// What failed and what to do, without secrets.
    public let description: String
    /// The source or item the error is about, when it names one.
    public let id: Int64?
    /// True when trying the fetch again may help: the provider did not answer, broke off, or
    /// answered 408, 429 or 5xx.
    public let isTransient: Bool
    /// For a download that ended early: the bytes announced and the bytes that came.
    public let expectedBytes: Int64?
    public let receivedBytes: Int64?

    private init(
        _ kind: Kind, _ description: String, id: Int64? = nil, isTransient: Bool = false,
        expectedBytes: Int64? = nil, receivedBytes: Int64? = nil
    ) {
        self.kind = kind
        self.description = description
        self.id = id
        self.isTransient = isTransient
        self.expectedBytes = expectedBytes
        self.receivedBytes = receivedBytes
    }

    public static func sourceNotFound(_ id: Int64) -> CatalogError {
        CatalogError(.notFound, "no catalog source has id \(id)", id: id)
    }
    public static func itemNotFound(_ id: Int64) -> CatalogError {
        CatalogError(.notFound, "no catalog item has id \(id)", id: id)
    }
    public static func notFavourite(_ id: Int64) -> CatalogError {
        CatalogError(.unsupported, "item \(id) is not a favourite; add it to the favourites first", id: id)
    }
    /// The fetch or parse produced nothing: the previous items are kept rather than wiped.
    public static let emptyImport = CatalogError(
        .fetchFailed, "the source has no entries; the previous catalog was kept")
    /// A fetch from the provider failed; `transient` when trying again may help (no answer, a
    /// reset, 408/429/5xx).
    public static func fetchFailed(_ reason: String, transient: Bool = false) -> CatalogError {
        CatalogError(.fetchFailed, "fetching the source failed: \(reason)", isTransient: transient)
    }
    public static func truncated(expected: Int64, received: Int64) -> CatalogError {
        CatalogError(
            .fetchFailed, "the download ended after \(received) of \(expected) bytes; the previous catalog was kept",
            isTransient: true, expectedBytes: expected, receivedBytes: received)
    }
    public static func unsupported(_ what: String) -> CatalogError {
        CatalogError(.unsupported, "not supported: \(what)")
    }

    /// Whether the error means "no such thing" (HTTP 404) rather than a failure.
    public var isNotFound: Bool { kind == .notFound }
    /// The operation does not apply to this item or source (not an error of the provider).
    public var isUnsupported: Bool { kind == .unsupported }
}
