import Catalog

extension FeatureError {
    /// A catalog error as the front ends answer it: an unknown id is `notFound`, what does not
    /// apply (a favourite order naming a non-favourite, a kind without that view) `conflict`, and
    /// the rest (an import's failed or truncated fetch) the provider's: `upstream`.
    public init(_ error: CatalogError) {
        let kind: Kind = error.isNotFound ? .notFound : error.isUnsupported ? .conflict : .upstream
        self.init(kind, error.description)
    }
}
