import Synchronization

/// A value shared between threads (child-process waiters, test callbacks), behind a lock.
/// A `Mutex` of nothing, guarding the value beside it: a `Mutex` of the value itself would
/// require what `body` returns to be sendable, and tests return whatever they read.
public final class LockedState<Value>: @unchecked Sendable {
    private let lock = Mutex(())
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { _ in try body(&value) }
    }
}
