/// Why a catalog operation failed.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case sourceNotFound(Int64)
        case itemNotFound(Int64)
        case notFavourite(Int64)
        case emptyImport
        case fetchFailed(String, transient: Bool)
        case truncated(expected: Int64, received: Int64)
        case unsupported(String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    public static func sourceNotFound(_ id: Int64) -> CatalogError { CatalogError(.sourceNotFound(id)) }
    public static func itemNotFound(_ id: Int64) -> CatalogError { CatalogError(.itemNotFound(id)) }
    public static func notFavourite(_ id: Int64) -> CatalogError { CatalogError(.notFavourite(id)) }
    /// The fetch or parse produced nothing: the previous items are kept rather than wiped.
    public static let emptyImport = CatalogError(.emptyImport)
    /// A fetch from the provider failed; `transient` when trying again may help (no answer, a
    /// reset, 408/429/5xx).
    public static func fetchFailed(_ reason: String, transient: Bool = false) -> CatalogError {
        CatalogError(.fetchFailed(reason, transient: transient))
    }
    public static func truncated(expected: Int64, received: Int64) -> CatalogError {
        CatalogError(.truncated(expected: expected, received: received))
    }
    public static func unsupported(_ what: String) -> CatalogError { CatalogError(.unsupported(what)) }

    /// What kind of failure it is; each front end turns it into its own answer.
    public enum Kind: Sendable, Hashable {
        /// No such source or item (HTTP 404).
        case notFound
        /// The operation does not apply to this item or source (HTTP 409).
        case unsupported
        /// The provider failed or sent something unusable (HTTP 502); the old data is kept.
        case fetchFailed
    }

    public var kind: Kind {
        switch code {
        case .sourceNotFound, .itemNotFound: .notFound
        case .unsupported, .notFavourite: .unsupported
        case .emptyImport, .fetchFailed, .truncated: .fetchFailed
        }
    }

    /// True when trying the fetch again may help: the provider did not answer, broke off, or
    /// answered 408, 429 or 5xx.
    public var isTransient: Bool {
        switch code {
        case .fetchFailed(_, let transient): transient
        case .truncated: true
        default: false
        }
    }

    /// Whether the error means "no such thing" (HTTP 404) rather than a failure.
    /// The operation does not apply to this item or source (not an error of the provider).
    public var isUnsupported: Bool {
        switch code {
        case .unsupported, .notFavourite: return true
        default: return false
        }
    }

    public var isNotFound: Bool {
        switch code {
        case .sourceNotFound, .itemNotFound: return true
        default: return false
        }
    }

    public var description: String {
        switch code {
        case .sourceNotFound(let id): return "no catalog source has id \(id)"
        case .itemNotFound(let id): return "no catalog item has id \(id)"
        case .notFavourite(let id): return "item \(id) is not a favourite; add it to the favourites first"
        case .emptyImport: return "the source has no entries; the previous catalog was kept"
        case .fetchFailed(let reason, _): return "fetching the source failed: \(reason)"
        case .truncated(let expected, let received):
            return "the download ended after \(received) of \(expected) bytes; the previous catalog was kept"
        case .unsupported(let what): return "not supported: \(what)"
        }
    }
}
