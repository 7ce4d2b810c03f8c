import Catalog
import LiveTV
import Outputs
import Streaming
import Transfers
import TusServer

extension FeatureError {
    /// The feature error any error answers as: a feature error as it is, a service's error through
    /// its module's initialiser; nil for an error no feature names (a front end's own failure).
    /// The one entry the front ends use, so each service's mapping lives in one place.
    public init?(answering error: any Error) {
        switch error {
        case let error as FeatureError: self = error
        case let error as CatalogError: self.init(error)
        case let error as OutputError: self.init(error)
        case let error as TransferError: self.init(error)
        case let error as TusUploadStoreError: self.init(error)
        case let error as StreamError: self.init(error)
        case let error as LiveError: self.init(error)
        default: return nil
        }
    }
}
