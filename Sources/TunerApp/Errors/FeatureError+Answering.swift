import Catalog
import LiveTV
import Outputs
import Streaming
import Transfers
import TunerStorage
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
        case let error as StorageUnavailableError: self.init(error)
        default: return nil
        }
    }
}

extension FeatureError {
    /// The state database is out of reach: `unavailable`, asking to retry in
    /// ``unavailableRetrySeconds``. The answer names no address (a player or a stranger reads it);
    /// the log has the details.
    public init(_ error: StorageUnavailableError) {
        self.init(
            .unavailable, "Tuner's database cannot be reached right now; Tuner reconnects by itself, try again shortly",
            retryAfterSeconds: Self.unavailableRetrySeconds)
    }

    /// An error of `kind` saying `description` for a failure `cause` explains, unless the cause
    /// is the state database out of reach: that answers `unavailable` whatever the kind, so a
    /// lost database never reads as a missing profile or a broken catalog.
    public init(_ kind: Kind, _ description: String, cause: any Error) {
        switch cause {
        case let error as StorageUnavailableError: self.init(error)
        case let error as FeatureError where error.kind == .unavailable: self = error
        default: self.init(kind, description)
        }
    }
}
