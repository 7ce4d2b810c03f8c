import Dispatch

/// Runs blocking file-system calls (pwrite, fsync, hashing a file region) on a dispatch queue and
/// awaits them, so they never hold one of Swift's few cooperative threads.
enum UploadBlockingIO {
    private static let queue = DispatchQueue(label: "tuner.transfers.file-io", qos: .utility, attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
