import Outputs

extension FeatureError {
    /// An output error as the front ends answer it: each kind keeps its name.
    public init(_ error: OutputError) {
        switch error.kind {
        case .notFound: self.init(.notFound, error.description)
        case .invalid: self.init(.invalid, error.description)
        case .conflict: self.init(.conflict, error.description)
        }
    }
}
