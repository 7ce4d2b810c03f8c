import NIOCore

/// Runs a download with a time limit over all of it, body included.
///
/// AsyncHTTPClient's request deadline ends when the response head arrives, so a provider that
/// drips (or holds) the body would keep an import going for ever. Here the operation runs in a
/// child task that is cancelled at the deadline, which AsyncHTTPClient turns into a closed
/// connection; the operation's own cleanup (the partial download's removal) runs before this
/// returns.
enum ImportDeadline {
    static func run<T: Sendable>(
        within limit: TimeAmount, what: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: .nanoseconds(max(limit.nanoseconds, 0)))
                return nil
            }
            defer { group.cancelAll() }
            // The first to finish decides: the operation's result or error, or the deadline.
            guard let first = try await group.next(), let value = first else {
                throw ImportLimits.tooSlow(what)
            }
            return value
        }
    }
}
