import Crypto
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a download's body to its partial file and feeds its SHA-256, each on a serial queue of
/// its own, so the task reading from the network only copies chunks into batches and hands them
/// over.
///
/// Why: done inline, `pwrite` and hashing ran one after the other on the receiving task, and a
/// 512 MiB download with a checksum took 1.6× curl's time on two cores. Here the body is
/// gathered into batches that end on multiples of `batchBytes` in the file (so every full batch
/// starts and ends block-aligned), written on one queue and hashed on another while the next
/// batch arrives. At most `maximumBytesInFlight` wait for either queue; beyond that `append`
/// waits.
///
/// Full batches are written with `O_DIRECT` where the platform and file system allow it: the
/// bytes go from the batch to the disk without a copy into the page cache and without the
/// kernel's later writeback, which is most of what a download costs in CPU besides the
/// checksum, and the periodic `fdatasync` then finds little left to do. Partial batches (the
/// first after an unaligned resume, the last) go through the page cache as before. Both paths
/// are made durable by the same `fdatasync` on the file.
///
/// Batches are written in order at offsets fixed when they are handed over, and writing stops at
/// the first failure, so `writtenEnd` is always the end of a contiguous written prefix.
final class DownloadWriter: @unchecked Sendable {
    let file: PartialFile
    let batchBytes: Int
    /// The size of the buffers: `batchBytes`, or less for a body known to be smaller.
    let batchCapacity: Int
    let maximumBytesInFlight: Int

    private let writeQueue = DispatchQueue(label: "tuner.transfers.write")
    private let hashQueue = DispatchQueue(label: "tuner.transfers.hash")
    /// Touched only on `hashQueue` (after `init`).
    private var hasher: SHA256?
    /// Whether there is a checksum to feed, fixed at `init` so the receiving task never reads
    /// `hasher` while the hash queue updates it.
    private let hashing: Bool
    /// A second descriptor of the file opened with O_DIRECT, or nil; touched only on `writeQueue`.
    private var directDescriptor: Int32?

    /// Touched only by the receiving task (one caller at a time).
    private var filling: Batch?
    private var submittedEnd: Int64

    private struct Shared {
        var writtenEnd: Int64
        var bytesInFlight = 0
        var failure: TransferError?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var spare: [Batch] = []
    }
    private let shared: Mutex<Shared>

    /// A writer that appends at `offset` and continues `hasher` (nil: no checksum).
    /// `batchBytes` is rounded up to a multiple of 4 KiB. `direct` allows O_DIRECT writes.
    /// `expectedBytes`, the length of the body when it is known, only sizes the buffers: a body
    /// shorter than a batch never fills one, so it gets a buffer its size and no O_DIRECT
    /// descriptor (with 1,000 small files, a 1 MiB buffer and a second `open` each cost more than
    /// the bytes). More bytes than expected still work, in more batches.
    init(
        file: PartialFile, offset: Int64, hasher: SHA256?, batchBytes: Int, maximumBytesInFlight: Int,
        direct: Bool = true, expectedBytes: Int64? = nil
    ) {
        self.file = file
        self.hasher = hasher
        hashing = hasher != nil
        let blocks = max(1, (batchBytes + Self.alignment - 1) / Self.alignment)
        self.batchBytes = blocks * Self.alignment
        self.maximumBytesInFlight = max(self.batchBytes, maximumBytesInFlight)
        submittedEnd = offset
        shared = Mutex(Shared(writtenEnd: offset))
        if let expectedBytes, expectedBytes < Int64(self.batchBytes) {
            let expectedBlocks = max(1, (Int(expectedBytes) + Self.alignment - 1) / Self.alignment)
            batchCapacity = expectedBlocks * Self.alignment
        } else {
            batchCapacity = self.batchBytes
            if direct { directDescriptor = Self.openDirect(file.path) }
        }
    }

    deinit {
        if let directDescriptor { _ = close(directDescriptor) }
    }

    /// The end of the bytes handed over so far (written or not).
    var receivedEnd: Int64 { submittedEnd + Int64(filling?.count ?? 0) }

    /// The end of the contiguous prefix written to the file so far.
    var writtenEnd: Int64 { shared.withLock { $0.writtenEnd } }

    /// Copies a chunk of the body into batches, handing each full one to the queues (waiting
    /// first while too many bytes are still on their way to the file).
    func append(_ chunk: ByteBuffer) async throws {
        var rest = chunk
        while rest.readableBytes > 0 {
            if filling == nil { filling = takeBatch(limit: min(batchCapacity, roomToBoundary())) }
            let batch = filling!
            let taken = min(rest.readableBytes, batch.limit - batch.count)
            rest.withUnsafeReadableBytes { bytes in
                batch.memory.advanced(by: batch.count).copyMemory(from: bytes.baseAddress!, byteCount: taken)
            }
            batch.count += taken
            rest.moveReaderIndex(forwardBy: taken)
            if batch.count == batch.limit { try await submitFilling() }
        }
    }

    /// Waits until every batch handed over so far is written (not yet synced) and returns the
    /// end of the written data. The batch being filled stays in memory, so full batches keep
    /// their alignment; throws the write failure, if any.
    @discardableResult
    func drainSubmitted() async throws -> Int64 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writeQueue.async { continuation.resume() }
        }
        return try shared.withLock { shared in
            if let failure = shared.failure { throw failure }
            return shared.writtenEnd
        }
    }

    /// Hands over the partly filled batch too and waits until every byte is in the file (not
    /// yet synced). Returns the end of the written data; throws the write failure, if any.
    @discardableResult
    func drain() async throws -> Int64 {
        try await submitFilling()
        return try await drainSubmitted()
    }

    /// `drain()`, then `fdatasync` of the file, in one visit to the write queue (it follows the
    /// writes there): the end of a body, where nothing else waits to be written. Returns the end
    /// of the written data, all of it synced.
    func drainAndSync() async throws -> Int64 {
        try await submitFilling()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeQueue.async {
                do {
                    try self.file.sync()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return try shared.withLock { shared in
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

    // MARK: Batches

    /// 4 KiB: the largest logical block size of common disks, so O_DIRECT accepts the buffers,
    /// lengths and offsets of full batches.
    static let alignment = 4096

    /// A block-aligned buffer that is filled up to `limit`, then written and hashed, then reused.
    final class Batch: @unchecked Sendable {
        let memory: UnsafeMutableRawPointer
        let capacity: Int
        var limit = 0
        var count = 0

        init(capacity: Int) {
            var pointer: UnsafeMutableRawPointer?
            precondition(
                posix_memalign(&pointer, DownloadWriter.alignment, capacity) == 0 && pointer != nil,
                "out of memory for a download buffer")
            memory = pointer!
            self.capacity = capacity
        }

        deinit { free(memory) }

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: memory, count: count) }
    }

    /// Bytes from the next byte to the next multiple of `batchBytes` in the file.
    private func roomToBoundary() -> Int {
        let position = Int(submittedEnd % Int64(batchBytes))
        return batchBytes - position
    }

    private func takeBatch(limit: Int) -> Batch {
        let batch = shared.withLock { $0.spare.popLast() } ?? Batch(capacity: batchCapacity)
        batch.limit = limit
        batch.count = 0
        return batch
    }

    private func submitFilling() async throws {
        if let failure = shared.withLock({ $0.failure }) { throw failure }
        guard let batch = filling, batch.count > 0 else { return }
        await waitForRoom()
        filling = nil
        let offset = submittedEnd
        let count = batch.count
        submittedEnd += Int64(count)
        // A batch is done once both queues have finished with it; the last one recycles it.
        let users = BatchUsers(hashing ? 2 : 1)
        shared.withLock { $0.bytesInFlight += count }

        writeQueue.async {
            let skip = self.shared.withLock { $0.failure != nil }
            var failure: TransferError?
            if !skip {
                do { try self.write(batch, at: offset) } catch {
                    failure = error as? TransferError ?? .transient("\(error)")
                }
            }
            self.release(batch, users: users, count: count) { shared in
                if let failure, shared.failure == nil { shared.failure = failure }
                if failure == nil && !skip { shared.writtenEnd = offset + Int64(count) }
            }
        }
        if hashing {
            hashQueue.async {
                self.hasher?.update(bufferPointer: batch.bytes)
                self.release(batch, users: users, count: count) { _ in }
            }
        }
    }

    /// On `writeQueue`: a full, aligned batch goes through O_DIRECT when available; anything
    /// else (and everything after O_DIRECT was refused once) through the page cache.
    private func write(_ batch: Batch, at offset: Int64) throws {
        if let direct = directDescriptor, batch.count == batchBytes, offset % Int64(Self.alignment) == 0 {
            var done = 0
            while done < batch.count {
                let written = pwrite(direct, batch.memory + done, batch.count - done, off_t(offset + Int64(done)))
                if written > 0 {
                    done += written
                    continue
                }
                if written < 0 && errno == EINTR { continue }
                if written < 0 && (errno == EINVAL || errno == EOPNOTSUPP) {
                    // The file system took the open but not the write: stay buffered from now on.
                    _ = close(direct)
                    directDescriptor = nil
                    break
                }
                throw PartialFile.error("cannot write \(file.path)")
            }
            if done == batch.count { return }
            try file.write(
                UnsafeRawBufferPointer(start: batch.memory + done, count: batch.count - done), at: offset + Int64(done))
            return
        }
        try file.write(batch.bytes, at: offset)
    }

    /// Records a finished step and, when it was the batch's last user, recycles the batch and
    /// wakes `append` callers when there is room again.
    private func release(_ batch: Batch, users: BatchUsers, count: Int, _ update: (inout Shared) -> Void) {
        let last = users.finishOne()
        let woken: [CheckedContinuation<Void, Never>] = shared.withLock { shared in
            update(&shared)
            guard last else { return [] }
            shared.bytesInFlight -= count
            // Enough spares for a full pipeline: fresh buffers would cost a page fault per 4 KiB.
            if shared.spare.count <= maximumBytesInFlight / batchCapacity { shared.spare.append(batch) }
            guard shared.bytesInFlight + batchBytes <= maximumBytesInFlight else { return [] }
            defer { shared.waiters = [] }
            return shared.waiters
        }
        woken.forEach { $0.resume() }
    }

    private func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let roomNow = shared.withLock { shared in
                if shared.bytesInFlight + batchBytes <= maximumBytesInFlight { return true }
                shared.waiters.append(continuation)
                return false
            }
            if roomNow { continuation.resume() }
        }
    }

    // MARK: O_DIRECT

    /// Opens `path` for O_DIRECT writes, or nil where that is unknown or refused (tmpfs, macOS).
    private static func openDirect(_ path: String) -> Int32? {
        #if os(Linux) && (arch(x86_64) || arch(i386))
            let flag: Int32 = 0o40000
        #elseif os(Linux) && (arch(arm64) || arch(arm))
            let flag: Int32 = 0o200000
        #else
            return nil
        #endif
        #if os(Linux) && (arch(x86_64) || arch(i386) || arch(arm64) || arch(arm))
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | flag)
            return descriptor >= 0 ? descriptor : nil
        #endif
    }
}

/// How many of the queues (write, hash) still use a batch: the last one to finish recycles it.
private final class BatchUsers: Sendable {
    private let remaining: Atomic<Int>

    init(_ count: Int) { remaining = Atomic(count) }

    /// Records one user done; true for the last.
    func finishOne() -> Bool { remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }
}
