import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a download's body to its partial file and feeds its SHA-256, each on a serial queue of
/// its own, so the task reading from the network only collects buffers and hands them over.
///
/// Why: done inline, copying each chunk into a write buffer, `pwrite` and hashing ran one after
/// the other on the receiving task, and a 512 MiB download with a checksum took about 1.6× curl's
/// time on two cores. Here the chunks are kept as received (no copy), gathered into batches of
/// `batchBytes`, written with `pwritev` on one queue and hashed on another while the next batch
/// arrives. At most `maximumBytesInFlight` wait for either queue; beyond that `append` waits.
///
/// Batches are written in order at offsets fixed when they are handed over, and writing stops at
/// the first failure, so `writtenEnd` is always the end of a contiguous written prefix.
final class DownloadWriter: @unchecked Sendable {
    let file: PartialFile
    let batchBytes: Int
    let maximumBytesInFlight: Int

    private let writeQueue = DispatchQueue(label: "tuner.transfers.write")
    private let hashQueue = DispatchQueue(label: "tuner.transfers.hash")
    /// Touched only on `hashQueue`.
    private var hasher: SHA256?

    /// Touched only by the receiving task (one caller at a time).
    private var batch: [ByteBuffer] = []
    private var batchCount = 0
    private var submittedEnd: Int64

    private struct Shared {
        var writtenEnd: Int64
        var bytesInFlight = 0
        var failure: TransferError?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let shared: NIOLockedValueBox<Shared>

    /// A writer that appends at `offset` and continues `hasher` (nil: no checksum).
    init(file: PartialFile, offset: Int64, hasher: SHA256?, batchBytes: Int, maximumBytesInFlight: Int) {
        self.file = file
        self.hasher = hasher
        self.batchBytes = max(1, batchBytes)
        self.maximumBytesInFlight = max(batchBytes, maximumBytesInFlight)
        submittedEnd = offset
        shared = NIOLockedValueBox(Shared(writtenEnd: offset))
    }

    /// The end of the bytes handed over so far (written or not).
    var receivedEnd: Int64 { submittedEnd + Int64(batchCount) }

    /// The end of the contiguous prefix written to the file so far.
    var writtenEnd: Int64 { shared.withLockedValue { $0.writtenEnd } }

    /// Takes a chunk of the body; hands a batch to the queues when it is full, waiting first
    /// while too many bytes are still on their way to the file.
    func append(_ chunk: ByteBuffer) async throws {
        guard chunk.readableBytes > 0 else { return }
        batch.append(chunk)
        batchCount += chunk.readableBytes
        if batchCount >= batchBytes { try await submit() }
    }

    /// Hands over what is collected and waits until every byte handed over is in the file (not
    /// yet synced). Returns the end of the written data; throws the write failure, if any.
    @discardableResult
    func drain() async throws -> Int64 {
        try await submit()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writeQueue.async { continuation.resume() }
        }
        return try shared.withLockedValue { shared in
            if let failure = shared.failure { throw failure }
            return shared.writtenEnd
        }
    }

    /// Waits for the hash queue and returns the checksum state over every byte handed over.
    func finishHashing() async -> SHA256? {
        await withCheckedContinuation { (continuation: CheckedContinuation<SHA256?, Never>) in
            hashQueue.async { continuation.resume(returning: self.hasher) }
        }
    }

    private func submit() async throws {
        if let failure = shared.withLockedValue({ $0.failure }) { throw failure }
        guard batchCount > 0 else { return }
        await waitForRoom()
        let chunks = batch
        let count = batchCount
        let offset = submittedEnd
        batch = []
        batchCount = 0
        submittedEnd += Int64(count)
        let hashing = hasher != nil
        shared.withLockedValue { $0.bytesInFlight += hashing ? 2 * count : count }

        writeQueue.async {
            let skip = self.shared.withLockedValue { $0.failure != nil }
            var failure: TransferError?
            if !skip {
                do { try self.file.write(chunks, at: offset) } catch { failure = error as? TransferError ?? .transient("\(error)") }
            }
            self.finished(count) { shared in
                if let failure, shared.failure == nil { shared.failure = failure }
                if failure == nil && !skip { shared.writtenEnd = offset + Int64(count) }
            }
        }
        if hashing {
            hashQueue.async {
                for chunk in chunks {
                    chunk.withUnsafeReadableBytes { self.hasher?.update(bufferPointer: $0) }
                }
                self.finished(count) { _ in }
            }
        }
    }

    /// Records a finished step and wakes `append` callers when there is room again.
    private func finished(_ count: Int, _ update: (inout Shared) -> Void) {
        let woken: [CheckedContinuation<Void, Never>] = shared.withLockedValue { shared in
            update(&shared)
            shared.bytesInFlight -= count
            guard shared.bytesInFlight <= maximumBytesInFlight else { return [] }
            defer { shared.waiters = [] }
            return shared.waiters
        }
        woken.forEach { $0.resume() }
    }

    private func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let roomNow = shared.withLockedValue { shared in
                if shared.bytesInFlight <= maximumBytesInFlight { return true }
                shared.waiters.append(continuation)
                return false
            }
            if roomNow { continuation.resume() }
        }
    }
}

extension PartialFile {
    /// Writes `chunks` one after another from `offset`. (A `pwrite` per chunk: the chunks are the
    /// network's reads, tens of KiB each, so `pwritev` would save little.)
    func write(_ chunks: [ByteBuffer], at offset: Int64) throws {
        var position = offset
        for chunk in chunks {
            try chunk.withUnsafeReadableBytes { try write($0, at: position) }
            position += Int64(chunk.readableBytes)
        }
    }
}
