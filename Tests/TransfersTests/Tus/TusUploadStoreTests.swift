import Crypto
import Foundation
import NIOCore
import Testing
import Tus

@testable import TusServer

@Suite("Tus upload store")
struct TusUploadStoreTests {
    private func makeStore(_ directory: String, maxSize: Int64 = 1 << 30) throws -> TusUploadStore {
        try TusUploadStore(configuration: .init(directory: directory, maxSize: maxSize), logger: TusFixtures.logger)
    }

    @Test("Pieces appended over several PATCHes become a finished file with the metadata's name, and survive reopening")
    func appendCompleteAndReopen() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TusFixtures.bytes(300_000)
        let store = try makeStore(directory)
        let created = try store.create(
            length: Int64(bytes.count), metadata: TusMetadata(["filename": "../../etc/clip.mp4"]))
        #expect(created.offset == 0)
        #expect(created.filename == "clip.mp4")
        var info = try await store.append(
            to: created.id, at: 0, body: PiecesBody(pieces: [Array(bytes[0..<1000]), Array(bytes[1000..<100_000])]))
        #expect(info.offset == 100_000)
        #expect(!info.isComplete)

        let reopened = try makeStore(directory)
        #expect(try reopened.info(id: created.id).offset == 100_000)
        info = try await reopened.append(
            to: created.id, at: 100_000, body: PiecesBody(pieces: [Array(bytes[100_000...])]))
        #expect(info.isComplete)
        #expect(try TusFixtures.sha256(file: reopened.completedPath(of: created.id)) == TusFixtures.sha256(bytes))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(created.id).part"))
    }

    @Test("A checksum mismatch discards the PATCH's bytes; a matching one commits them")
    func checksums() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TusFixtures.bytes(50_000)
        let store = try makeStore(directory)
        let id = try store.create(length: Int64(bytes.count)).id
        let first = Array(bytes[0..<20_000])
        let wrong = TusChecksum(algorithm: .sha1, digest: Data(Insecure.SHA1.hash(data: Array(bytes[1..<20_001]))))
        await #expect(throws: TusUploadStoreError.self) {
            try await store.append(to: id, at: 0, checksum: wrong, body: PiecesBody(pieces: [first]))
        }
        #expect(try store.info(id: id).offset == 0)
        #expect(TusDataFile.size(atPath: "\(directory)/\(id).part") == 0)
        for (algorithm, digest) in [(TusChecksumAlgorithm.md5, Data(Insecure.MD5.hash(data: first)))] {
            let info = try await store.append(
                to: id, at: 0, checksum: TusChecksum(algorithm: algorithm, digest: digest),
                body: PiecesBody(pieces: [first]))
            #expect(info.offset == 20_000)
        }
        let rest = Array(bytes[20_000...])
        let info = try await store.append(
            to: id, at: 20_000, checksum: TusChecksum(algorithm: .sha256, digest: Data(SHA256.hash(data: rest))),
            body: PiecesBody(pieces: [rest]))
        #expect(info.isComplete)
        #expect(try TusFixtures.sha256(file: store.completedPath(of: id)) == TusFixtures.sha256(bytes))
    }

    @Test("A body that breaks off keeps what arrived, unless a checksum cannot be verified")
    func droppedBodies() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TusFixtures.bytes(40_000)
        let store = try makeStore(directory)
        let id = try store.create(length: Int64(bytes.count)).id
        await #expect(throws: ConnectionDropped.self) {
            try await store.append(
                to: id, at: 0, body: PiecesBody(pieces: [Array(bytes[0..<7000])], failure: ConnectionDropped()))
        }
        #expect(try store.info(id: id).offset == 7000)
        let digest = Data(SHA256.hash(data: Array(bytes[7000...])))
        await #expect(throws: ConnectionDropped.self) {
            try await store.append(
                to: id, at: 7000, checksum: TusChecksum(algorithm: .sha256, digest: digest),
                body: PiecesBody(pieces: [Array(bytes[7000..<9000])], failure: ConnectionDropped()))
        }
        #expect(try store.info(id: id).offset == 7000)
        let info = try await store.append(to: id, at: 7000, body: PiecesBody(pieces: [Array(bytes[7000...])]))
        #expect(info.isComplete)
        #expect(try TusFixtures.sha256(file: store.completedPath(of: id)) == TusFixtures.sha256(bytes))
    }

    @Test("Bytes past the committed offset (never acknowledged, as after a crash) are cut off, not trusted")
    func unacknowledgedTailAfterCrash() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = TusFixtures.bytes(30_000)
        let store = try makeStore(directory)
        let id = try store.create(length: Int64(bytes.count)).id
        _ = try await store.append(to: id, at: 0, body: PiecesBody(pieces: [Array(bytes[0..<10_000])]))
        // What a crash can leave: the file longer than the recorded offset, with wrong bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/\(id).part"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 5000))
        try handle.close()

        let reopened = try makeStore(directory)
        #expect(try reopened.info(id: id).offset == 10_000)
        let info = try await reopened.append(to: id, at: 10_000, body: PiecesBody(pieces: [Array(bytes[10_000...])]))
        #expect(info.isComplete)
        #expect(try TusFixtures.sha256(file: reopened.completedPath(of: id)) == TusFixtures.sha256(bytes))
    }

    @Test("A second PATCH while one runs is refused as locked; wrong offsets, sizes and ids are refused")
    func refusals() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try makeStore(directory, maxSize: 100_000)
        let id = try store.create(length: 1000).id

        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let running = Task { try await store.append(to: id, at: 0, body: stream) }
        continuation.yield(ByteBuffer(bytes: TusFixtures.bytes(10)))
        // Wait until the first append holds the upload (it shows as locked to a termination).
        var locked = false
        for _ in 0..<500 {
            do {
                _ = try await store.append(to: id, at: 0, body: PiecesBody(pieces: []))
            } catch let error as TusUploadStoreError where error.kind == .locked {
                locked = true
                break
            } catch {}
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(locked)
        continuation.finish()
        #expect(try await running.value.offset == 10)

        await #expect { try await store.append(to: id, at: 5, body: PiecesBody(pieces: [[1]])) } throws: {
            ($0 as? TusUploadStoreError)?.kind == .offsetMismatch && ($0 as? TusUploadStoreError)?.offset == 10
        }
        await #expect {
            try await store.append(to: id, at: 10, body: PiecesBody(pieces: [TusFixtures.bytes(991)]))
        } throws: {
            ($0 as? TusUploadStoreError)?.kind == .exceedsLength
        }
        #expect(try store.info(id: id).offset == 10)
        #expect { try store.create(length: 100_001) } throws: { ($0 as? TusUploadStoreError)?.kind == .tooLarge }
        #expect { try store.info(id: "../../../../etc/passwd") } throws: {
            ($0 as? TusUploadStoreError)?.kind == .notFound
        }
        try store.terminate(id: id)
        #expect { try store.info(id: id) } throws: { ($0 as? TusUploadStoreError)?.kind == .notFound }
        #expect(store.allIDs().isEmpty)
    }

    @Test("A deferred length is declared by a later PATCH")
    func deferredLength() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try makeStore(directory)
        let bytes = TusFixtures.bytes(5000)
        let id = try store.create(length: nil).id
        var info = try await store.append(to: id, at: 0, body: PiecesBody(pieces: [Array(bytes[0..<3000])]))
        #expect(info.length == nil)
        info = try await store.append(
            to: id, at: 3000, declaringLength: 5000, body: PiecesBody(pieces: [Array(bytes[3000...])]))
        #expect(info.isComplete)
        #expect(try TusFixtures.sha256(file: store.completedPath(of: id)) == TusFixtures.sha256(bytes))
    }

    @Test("Upload-Metadata parses and prints back; malformed headers are refused")
    func metadata() throws {
        let parsed = try #require(TusMetadata(header: "filename d29ybGRfZG9taW5hdGlvbl9wbGFuLnBkZg==,is_confidential"))
        #expect(parsed["filename"] == "world_domination_plan.pdf")
        #expect(parsed.entries.count == 2 && parsed.entries[1].value == nil)
        #expect(TusMetadata(header: parsed.headerValue) == parsed)
        #expect(TusMetadata(header: "a !!!notbase64") == nil)
        #expect(TusMetadata(header: "a YQ==,a YQ==") == nil)
        #expect(TusMetadata(header: "a YQ== b") == nil)
    }

    @Test(
        """
        Unfinished uploads expire a lifetime after their last bytes: expired before the sweep, gone with their \
        bytes after it; finished ones never
        """
    )
    func expiration() async throws {
        let directory = try TusFixtures.temporaryDirectory("tus-store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lifetime: TimeInterval = 3600
        let store = try TusUploadStore(
            configuration: .init(directory: directory, incompleteLifetime: lifetime), logger: TusFixtures.logger)
        let created = try store.create(length: 100)
        let expiresAt = try #require(created.expiresAt)
        #expect(expiresAt.timeIntervalSinceNow > lifetime - 60 && expiresAt.timeIntervalSinceNow <= lifetime + 1)
        #expect(
            expiresAt.timeIntervalSince1970 == expiresAt.timeIntervalSince1970.rounded(),
            "whole seconds, like Upload-Expires")
        let renewed = try await store.append(to: created.id, at: 0, body: PiecesBody(pieces: [TusFixtures.bytes(10)]))
        let renewedExpiry = try #require(renewed.expiresAt)
        #expect(renewedExpiry >= expiresAt, "received bytes move the expiry on")
        let finished = try store.create(length: 3)
        _ = try await store.append(to: finished.id, at: 0, body: PiecesBody(pieces: [[1, 2, 3]]))
        #expect(store.expiry(of: try store.info(id: finished.id)) == nil)

        #expect(store.removeExpired(now: Date()) == 0)
        #expect(store.removeExpired(now: renewedExpiry.addingTimeInterval(1)) == 1)
        #expect { try store.info(id: created.id) } throws: { ($0 as? TusUploadStoreError)?.kind == .notFound }
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(created.id).part"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/\(created.id).info"))
        #expect(try store.info(id: finished.id).isComplete)
        #expect(FileManager.default.fileExists(atPath: store.completedPath(of: finished.id)))

        // Without a lifetime nothing expires; an upload recorded then gets its creation plus the
        // lifetime once one is set.
        let forever = try TusUploadStore(configuration: .init(directory: directory), logger: TusFixtures.logger)
        let old = try forever.create(length: 10)
        #expect(old.expiresAt == nil)
        #expect(forever.removeExpired(now: .distantFuture) == 0)
        let reopened = try TusUploadStore(
            configuration: .init(directory: directory, incompleteLifetime: 60), logger: TusFixtures.logger)
        let stored = try reopened.info(id: old.id)
        #expect(reopened.expiry(of: stored) == stored.createdAt.addingTimeInterval(60))
        #expect(reopened.removeExpired(now: stored.createdAt.addingTimeInterval(61)) == 1)

        // Past its expiry and before a sweep, an upload answers `expired` (410 at the endpoint).
        let brief = try TusUploadStore(
            configuration: .init(directory: directory, incompleteLifetime: 0.001), logger: TusFixtures.logger)
        let short = try brief.create(length: 10)
        var code: TusUploadStoreError.Kind?
        for _ in 0..<500 where code == nil {
            do {
                _ = try brief.info(id: short.id)
                try await Task.sleep(for: .milliseconds(10))
            } catch let error as TusUploadStoreError {
                code = error.kind
            }
        }
        #expect(code == .expired)
        await #expect { try await brief.append(to: short.id, at: 0, body: PiecesBody(pieces: [[1]])) } throws: {
            ($0 as? TusUploadStoreError)?.kind == .expired
        }
    }
}
