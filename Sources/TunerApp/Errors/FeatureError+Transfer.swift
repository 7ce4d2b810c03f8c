import Transfers

extension FeatureError {
    /// A transfer error as the front ends answer it: an unknown task is `notFound`, an operation
    /// its state refuses `conflict`, a wrong request `invalid`, and the rest a queue that could not
    /// be changed (`failed`).
    public init(_ error: TransferError) {
        switch error.kind {
        case .notFound: self.init(.notFound, error.description)
        case .invalidState: self.init(.conflict, error.description)
        case .invalidRequest: self.init(.invalid, error.description)
        default: self.init(.failed, "the transfer queue could not be changed: \(error)")
        }
    }
}
