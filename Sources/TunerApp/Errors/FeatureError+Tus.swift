import TusServer

extension FeatureError {
    /// An upload store error as the front ends other than the tus protocol answer it (the tus
    /// routes give their own statuses, 410, 423 and 460 among them).
    public init(_ error: TusUploadStoreError) {
        let kind: Kind =
            switch error.kind {
            case .notFound, .expired: .notFound
            case .offsetMismatch, .locked: .conflict
            case .storage: .failed
            default: .invalid
            }
        self.init(kind, error.description)
    }
}
