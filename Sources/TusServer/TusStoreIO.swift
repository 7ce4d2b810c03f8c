import Dispatch

/// Runs the store's blocking file-system calls (pwrite, fsync, info files) on a dispatch queue
/// and awaits them, so they never hold one of Swift's few cooperative threads.
enum TusStoreIO {
    private static let queue = DispatchQueue(label: "tuner.tus-server.file-io", qos: .utility, attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
