import NIOCore
import PostgresNIO
import Synchronization

/// Ends the wait for work on a PostgreSQL connection as soon as the connection closes, even when
/// postgres-nio itself would never answer.
///
/// Why: when the server goes away mid-work, postgres-nio (1.33) leaves some requests unanswered. A
/// `COPY` write that waits for the socket to drain keeps its promise in the state machine, which
/// drops it on close; a query sent after the close (the `ROLLBACK` of `withTransaction`) goes into a
/// pipeline without handlers. Either way the caller waits forever, and a server's graceful shutdown
/// waits with it. ``run(on:_:)`` runs the work as a task of its own and answers the caller with
/// ``ConnectionLost`` when the connection's close comes first; the abandoned task holds only what
/// it held.
///
/// One close callback per connection, however many requests it serves: a callback per request would
/// pile up on a pooled connection that lives for hours.
final class ConnectionLossWatch: Sendable {
    /// The one watch: connections are told apart by identity, whichever pool they belong to.
    static let shared = ConnectionLossWatch()

    private struct Waiters {
        var byConnection: [ObjectIdentifier: [Int: @Sendable () -> Void]] = [:]
        var nextID = 0
    }

    private let waiters = Mutex(Waiters())

    /// Runs `body` and returns what it returns, or throws ``ConnectionLost`` once `connection`
    /// closes first. Cancelling the caller cancels `body`.
    func run<Result: Sendable>(
        on connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = Outcome<Result>()
        // Unstructured on purpose: a structured child would keep the caller waiting for the very
        // answer that never comes. It ends when `body` does; cancelled with the caller.
        let work = Task {
            do {
                outcome.settle(.success(try await body()))
            } catch {
                outcome.settle(.failure(error))
            }
        }
        let waiter = watch(connection) { outcome.settle(.failure(ConnectionLost())) }
        defer { forget(connection, waiter) }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            work.cancel()
        }
    }

    /// Calls `onClose` once `connection` closes (at once if it already has); returns its id.
    private func watch(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void) -> Int {
        let key = ObjectIdentifier(connection)
        let (id, isFirst) = waiters.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            let isFirst = state.byConnection[key] == nil
            state.byConnection[key, default: [:]][id] = onClose
            return (id, isFirst)
        }
        if isFirst {
            // The closure keeps `connection` alive until it closes, so its identity is not reused
            // while it has waiters.
            connection.closeFuture.whenComplete { [self] _ in
                let closing = waiters.withLock { state in
                    _ = connection
                    return state.byConnection.removeValue(forKey: key)
                }
                for waiter in (closing ?? [:]).values { waiter() }
            }
        }
        return id
    }

    private func forget(_ connection: PostgresConnection, _ id: Int) {
        let key = ObjectIdentifier(connection)
        waiters.withLock { state in
            // The connection's entry stays (empty) while it is open: its close callback is set.
            _ = state.byConnection[key]?.removeValue(forKey: id)
        }
    }
}

/// The connection closed before the work on it answered (``TunerPostgres`` tells it as
/// ``StorageUnavailableError/Kind/connectionLost``).
struct ConnectionLost: Error {}

/// The first of two answers (the work's, or the connection's loss), for one waiting caller.
private final class Outcome<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var continuation: CheckedContinuation<Value, any Error>?
        var settled = false
    }

    private let state = Mutex(State())

    func settle(_ result: Result<Value, any Error>) {
        let waiting: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard !state.settled else { return nil }
            state.settled = true
            guard let continuation = state.continuation else {
                state.result = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        waiting?.resume(with: result)
    }

    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Value, any Error>? = state.withLock { state in
                if let result = state.result {
                    state.result = nil
                    return result
                }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
