import Crypto
import Foundation
import Logging
import NIOCore
import Transfers
import TunerTesting

/// Temporary folders and files with deterministic pseudo-random bytes.
enum TusFixtures {
    static func temporaryDirectory(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `count` bytes that depend on `seed` (xorshift), never all the same.
    static func bytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
        xorshiftBytes(count, seed: seed)
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    static func sha256(file path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    static var logger: Logger {
        var logger = Logger(label: "tus-test")
        logger.logLevel = .warning
        return logger
    }
}

/// A request body given as pieces, optionally failing after them like a dropped connection.
struct PiecesBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    var pieces: [[UInt8]]
    var failure: (any Error & Sendable)?

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: [[UInt8]]
        var failure: (any Error & Sendable)?

        mutating func next() async throws -> ByteBuffer? {
            if !remaining.isEmpty { return ByteBuffer(bytes: remaining.removeFirst()) }
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: pieces, failure: failure) }
}

struct ConnectionDropped: Error {}
