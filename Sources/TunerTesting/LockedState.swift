import Foundation

/// A value shared between threads (child-process waiters, test callbacks), behind a lock.
/// Foundation's `NSLock`, because NIOConcurrencyHelpers is not a dependency of this module and
/// `Synchronization.Mutex` needs macOS 15.
public final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
