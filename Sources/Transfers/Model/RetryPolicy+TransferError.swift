import MediaFormats

extension RetryPolicy {
    /// The decision after the `failures`-th failure in a row of a transfer (1 for the first).
    public func decision(
        for error: TransferError, failures: Int, random: inout some RandomNumberGenerator
    ) -> Decision {
        decision(
            transient: error.errorClass == .transient, retryAfter: error.retryAfter, failures: failures,
            random: &random)
    }
}
