import Crypto
import Foundation
import NIOCore
import Testing
import TunerTesting

@testable import Transfers

/// The queue-backed writer under file downloads: bytes land in order at the right offsets, the
/// checksum covers exactly what was handed over, and a failed write stops at a written prefix.
@Suite struct DownloadWriterTests {
    static func chunks(seed: UInt64, count: Int) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 1...70_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
            }
        }
    }

    /// With O_DIRECT for full batches (where the file system allows it) and without; the
    /// 1000-byte prefix makes the first batch short and unaligned, as after a resume.
    @Test(arguments: [true, false])
    func bytesLandInOrderAndTheChecksumCoversThemAll(direct: Bool) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString)").path
        defer { unlink(path) }
        let prefix: [UInt8] = Array(repeating: 7, count: 1000)
        _ = FileManager.default.createFile(atPath: path, contents: Data(prefix))
        let file = try PartialFile(path: path)
        defer { file.close() }

        var expected = SHA256()
        expected.update(data: prefix)
        var hasher = SHA256()
        hasher.update(data: prefix)
        // Small batches and a small in-flight limit, so `append` has to wait for the queues.
        let writer = DownloadWriter(
            file: file, offset: 1000, hasher: hasher, batchBytes: 100_000, maximumBytesInFlight: 250_000, direct: direct
        )
        var all = prefix
        for chunk in Self.chunks(seed: 42, count: 200) {
            try await writer.append(ByteBuffer(bytes: chunk))
            expected.update(data: chunk)
            all += chunk
            // Syncs drain either the full batches only (keeping alignment) or everything.
            if chunk.count % 17 == 0 { try await writer.drain() }
            if chunk.count % 13 == 0 { try await writer.drainSubmitted() }
        }
        #expect(writer.receivedEnd == Int64(all.count))
        let written = try await writer.drain()
        #expect(written == Int64(all.count))
        #expect(writer.writtenEnd == Int64(all.count))
        let contents = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        #expect(contents.count == all.count)
        #expect(
            SHA256.hash(data: contents) == SHA256.hash(data: all), "the file's bytes differ from what was handed over")
        let finished = await writer.finishHashing()
        #expect(finished?.finalize() == expected.finalize())
    }

    @Test func aFailedWriteIsThrownAndNothingPastItIsClaimed() async throws {
        // /dev/full fails every write with ENOSPC, as a full disk does.
        let full = try PartialFile(path: "/dev/full", create: false)
        defer { full.close() }
        let writer = DownloadWriter(file: full, offset: 0, hasher: nil, batchBytes: 10, maximumBytesInFlight: 100)
        let error = await #expect(throws: TransferError.self) {
            for chunk in Self.chunks(seed: 1, count: 20) { try await writer.append(ByteBuffer(bytes: chunk)) }
            try await writer.drain()
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("disk is full"), "\(String(describing: error))")
        #expect(writer.writtenEnd == 0)
    }
}
