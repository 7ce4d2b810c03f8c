import Foundation
import NIOCore

/// Writes one part of a recording as the MPEG-TS arrives, on a queue of its own (never on the
/// cooperative pool), and makes it durable in bounded steps: a sync every ``syncBytes`` or
/// ``syncInterval``, whichever comes first, so a crash loses at most that much.
final class RecordingWriter: @unchecked Sendable {
    // Unchecked: `handle`, `unsynced` and `lastSync` are touched only on `queue`.
    private let handle: FileHandle
    private let queue: DispatchQueue
    private var unsynced = 0
    private var lastSync = ContinuousClock.now
    let path: String

    static let syncBytes = 4 << 20
    static let syncInterval = Duration.seconds(2)

    /// Opens (creating it and its folder) the part at `path`, appending to what it holds.
    init(path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw FeatureError(.failed, "cannot create the recording file \(path): check the folder's permissions")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw FeatureError(.failed, "cannot open the recording file \(path) for writing")
        }
        try handle.seekToEnd()
        self.handle = handle
        self.path = path
        queue = DispatchQueue(label: "tuner.recording")
    }

    /// Appends `buffers`; returns whether the bytes are now synced (the caller then records the
    /// new durable length).
    func write(_ buffers: [ByteBuffer]) async throws -> Bool {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            queue.async { [self] in
                do {
                    for buffer in buffers {
                        try buffer.withUnsafeReadableBytes { bytes in
                            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                            try handle.write(contentsOf: Data(bytes: base, count: bytes.count))
                        }
                        unsynced += buffer.readableBytes
                    }
                    let due = unsynced >= Self.syncBytes || lastSync.duration(to: .now) >= Self.syncInterval
                    if due, unsynced > 0 {
                        try handle.synchronize()
                        unsynced = 0
                        lastSync = .now
                    }
                    continuation.resume(returning: due)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Syncs what is left and closes the file.
    func finish() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                do {
                    try handle.synchronize()
                    try handle.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The size of the file at `path`, cut back to whole 188-byte packets (a process killed
    /// mid-write may leave part of one); 0 when it is missing.
    static func truncateToPackets(_ path: String) -> Int64 {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 else { return 0 }
        let whole = size - size % 188
        if whole != size, let handle = FileHandle(forWritingAtPath: path) {
            try? handle.truncate(atOffset: UInt64(whole))
            try? handle.close()
        }
        return whole
    }
}
