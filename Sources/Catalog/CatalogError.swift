/// Why a catalog operation failed.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case sourceNotFound(Int64)
        case itemNotFound(Int64)
        case notFavourite(Int64)
        case emptyImport
        case fetchFailed(String)
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
    public static func fetchFailed(_ reason: String) -> CatalogError { CatalogError(.fetchFailed(reason)) }
    public static func truncated(expected: Int64, received: Int64) -> CatalogError {
        CatalogError(.truncated(expected: expected, received: received))
    }
    public static func unsupported(_ what: String) -> CatalogError { CatalogError(.unsupported(what)) }

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
        case .fetchFailed(let reason): return "fetching the source failed: \(reason)"
        case .truncated(let expected, let received):
            return "the download ended after \(received) of \(expected) bytes; the previous catalog was kept"
        case .unsupported(let what): return "not supported: \(what)"
        }
    }
}
