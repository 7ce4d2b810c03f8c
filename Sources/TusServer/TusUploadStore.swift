import Foundation
import Logging
import NIOCore
import Synchronization
import Tus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server side of tus 1.0 uploads: each upload's bytes and its state, in one directory.
///
/// On disk, per upload id:
/// - `<id>.part`: the bytes received so far, while the upload is unfinished;
/// - `<id>`: the finished file (renamed from `<id>.part` once every declared byte is durable);
/// - `<id>.info`: a small JSON ``TusUploadInfo`` (length, committed offset, metadata, dates).
///
/// Durability: the offset in `<id>.info` is the only offset the store ever reports, and it is
/// written (atomically: temporary file, fsync, rename, directory fsync) only after the bytes below
/// it were written and fsync'ed. The size of `<id>.part` is *not* trusted: after a crash, a file
/// system may show a length that includes bytes that never reached the disk (delayed allocation
/// leaves zeros there). So a crash mid-PATCH can only lose bytes the client was never told about;
/// the next PATCH truncates `<id>.part` back to the committed offset before writing. If the file
/// is somehow shorter than the recorded offset (a damaged disk), the shorter length wins and the
/// client is told the smaller offset, so it sends the missing bytes again.
///
/// During a long PATCH without a checksum the store commits every
/// ``Configuration/commitInterval`` bytes, so a dropped connection keeps most of what arrived. A
/// PATCH with an `Upload-Checksum` commits only at its end, after the digest matched: a mismatch
/// discards all of that PATCH's bytes.
///
/// One PATCH at a time per upload: a second concurrent PATCH (or a termination) fails with
/// ``TusUploadStoreError/Kind/locked``. Reading ``info(id:)`` is always allowed and never
/// blocks.
public final class TusUploadStore: Sendable {
    /// Where and how uploads are kept.
    public struct Configuration: Sendable {
        /// The uploads folder, created if missing (`<data>/uploads` in `tuner serve`).
        public var directory: String
        /// The largest upload accepted, in bytes (advertised as `Tus-Max-Size`).
        public var maxSize: Int64
        /// How long an unfinished upload is kept after its creation or the last bytes it received
        /// (tus `expiration`); nil keeps it forever. Finished uploads never expire.
        public var incompleteLifetime: TimeInterval?
        /// Bytes between two commits inside one PATCH without a checksum: a dropped connection
        /// loses at most this much of what was received.
        public var commitInterval: Int64

        public init(
            directory: String, maxSize: Int64 = 64 << 30, incompleteLifetime: TimeInterval? = nil,
            commitInterval: Int64 = 8 << 20
        ) {
            self.directory = directory
            self.maxSize = maxSize
            self.incompleteLifetime = incompleteLifetime
            self.commitInterval = commitInterval
        }

        /// How often ``TusUploadStore/runExpirySweeps()`` looks for expired uploads: a quarter of
        /// the lifetime, at most every 10 minutes; nil when uploads never expire.
        public var expirySweepInterval: TimeInterval? {
            incompleteLifetime.map { min(max($0 / 4, 0.05), 600) }
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    /// Ids with a PATCH or termination in progress.
    private let busy = Mutex<Set<String>>([])

    /// Bytes gathered before one `pwrite`, so the disk sees few large writes, not one per packet.
    private static let writeBatch = 1 << 20

    /// Opens (creating) the uploads folder and tidies it: leftover temporary files and data
    /// files without an info file (a crash during creation) are removed, and so are expired
    /// unfinished uploads.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        do {
            try FileManager.default.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        } catch {
            throw TusUploadStoreError(
                .storage, "cannot create the uploads folder \(configuration.directory): \(error.localizedDescription)")
        }
        tidy()
        removeExpired()
    }

    // MARK: Paths

    private var directory: String { configuration.directory }
    private func infoPath(_ id: String) -> String { "\(directory)/\(id).info" }
    private func partPath(_ id: String) -> String { "\(directory)/\(id).part" }

    /// Where a finished upload's bytes are: `<uploads>/<id>`.
    public func completedPath(of id: String) -> String { "\(directory)/\(id)" }

    /// Ids are 22 characters of base64url (128 random bits); anything else is never a file name
    /// here, which also keeps `..` and slashes out of every path this store builds.
    static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 22
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    // MARK: Operations

    /// Creates an upload of `length` bytes (nil defers the length to a later PATCH) and returns
    /// its state, offset 0. A zero-length upload is finished at once.
    public func create(length: Int64?, metadata: TusMetadata = TusMetadata()) throws -> TusUploadInfo {
        if let length {
            guard length >= 0 else { throw TusUploadStoreError(.invalidArgument, "Upload-Length must not be negative") }
            guard length <= configuration.maxSize else {
                throw TusUploadStoreError(
                    .tooLarge,
                    """
                    the upload of \(length) bytes is larger than this server's maximum of \
                    \(configuration.maxSize) bytes
                    """
                )
            }
        }
        let id = Self.newID()
        let now = Date()
        let info = TusUploadInfo(
            id: id, length: length, offset: 0, metadata: metadata, createdAt: now,
            expiresAt: newExpiry(from: now))
        // The data file first, then the info file: a crash in between leaves a data file without
        // info, which `tidy()` removes; never an info file pointing at nothing.
        let dataPath = length == 0 ? completedPath(of: id) : partPath(id)
        _ = try TusDataFile(path: dataPath, create: true)
        try TusDataFile.syncDirectory(directory)
        try writeInfo(info)
        logger.info(
            "upload created", metadata: ["upload": "\(id)", "length": "\(length.map(String.init) ?? "deferred")"])
        return info
    }

    /// The state of upload `id`, with its committed offset.
    public func info(id: String) throws -> TusUploadInfo {
        var info = try readInfo(id)
        if !info.isComplete {
            if let expiresAt = expiry(of: info), expiresAt < Date() {
                throw TusUploadStoreError(
                    .expired, "upload \(id) expired at \(expiresAt) and was removed; create a new one")
            }
            // Never claim more than the file holds (see the type's comment).
            let size = TusDataFile.size(atPath: partPath(id)) ?? 0
            if size < info.offset { info.offset = size }
        } else {
            finishRenameIfInterrupted(id)
        }
        return info
    }

    /// Appends `body` at `expectedOffset` and returns the new state.
    ///
    /// - Parameters:
    ///   - expectedOffset: the client's `Upload-Offset`; it must equal the committed offset.
    ///   - declaringLength: the `Upload-Length` of an upload created with a deferred length.
    ///   - checksum: when given, the PATCH's bytes are committed only if their digest matches;
    ///     otherwise they are discarded and the offset stays where it was.
    ///   - body: the request body, streamed to disk in batches; it is never held whole.
    ///
    /// When `body` throws (the client went away), the bytes received so far are synced and
    /// committed (unless a checksum was given, which cannot be verified on part of a body), and
    /// the body's error is rethrown.
    public func append<Body: AsyncSequence>(
        to id: String, at expectedOffset: Int64, declaringLength: Int64? = nil, checksum: TusChecksum? = nil, body: Body
    ) async throws -> TusUploadInfo where Body.Element == ByteBuffer {
        guard Self.isValidID(id) else { throw notFound(id) }
        try lock(id)
        defer { unlock(id) }
        var info = try self.info(id: id)

        if let declared = declaringLength {
            if let length = info.length {
                guard length == declared else {
                    throw TusUploadStoreError(
                        .lengthAlreadyDeclared, "upload \(id) already has a length of \(length) bytes",
                        offset: info.offset)
                }
            } else {
                guard declared >= info.offset else {
                    throw TusUploadStoreError(
                        .invalidArgument,
                        "Upload-Length \(declared) is less than the \(info.offset) bytes already received",
                        offset: info.offset)
                }
                guard declared <= configuration.maxSize else {
                    throw TusUploadStoreError(
                        .tooLarge,
                        """
                        the upload of \(declared) bytes is larger than this server's maximum of \
                        \(configuration.maxSize) bytes
                        """,
                        offset: info.offset)
                }
                info.length = declared
                try writeInfo(info)
            }
        }
        guard expectedOffset == info.offset else {
            throw TusUploadStoreError(
                .offsetMismatch,
                """
                Upload-Offset \(expectedOffset) does not match the \(info.offset) bytes this server has; send \
                HEAD and resume from there
                """,
                offset: info.offset)
        }
        if info.isComplete {
            // Nothing more may be sent; an empty PATCH (or the deferred length just declared
            // equal to the offset) is fine.
            for try await chunk in body where chunk.readableBytes > 0 {
                throw TusUploadStoreError(
                    .exceedsLength, "upload \(id) is already complete at \(info.offset) bytes", offset: info.offset)
            }
            try completeIfNeeded(&info)
            return info
        }

        let limit = info.length ?? configuration.maxSize
        let file = try TusDataFile(path: partPath(id), create: false)
        let start = info.offset
        try file.truncate(to: start)  // bytes after the committed offset were never acknowledged
        var hasher = checksum?.algorithm.makeHasher()
        var written = start  // bytes handed to pwrite
        var pending = ByteBuffer()
        var bodyError: (any Error)?

        do {
            do {
                for try await var chunk in body {
                    guard chunk.readableBytes > 0 else { continue }
                    if written + Int64(pending.readableBytes) + Int64(chunk.readableBytes) > limit {
                        let code: TusUploadStoreError.Kind = info.length == nil ? .tooLarge : .exceedsLength
                        throw TusUploadStoreError(
                            code,
                            """
                            this PATCH goes past the upload's \
                            \(info.length == nil ? "maximum" : "declared length") of \(limit) bytes
                            """,
                            offset: info.offset)
                    }
                    chunk.withUnsafeReadableBytes { hasher?.update($0) }
                    pending.writeBuffer(&chunk)
                    if pending.readableBytes >= Self.writeBatch {
                        written = try await flush(&pending, to: file, at: written)
                        if checksum == nil, written - info.offset >= configuration.commitInterval {
                            try await commit(&info, file: file, offset: written)
                        }
                    }
                }
            } catch let error as TusUploadStoreError {
                throw error
            } catch {
                // The body failed: the client went away or sent a broken request. What arrived
                // is kept below (tus allows it), except when it cannot be verified.
                bodyError = error
            }
            if let checksum, let hasher {
                if bodyError == nil, hasher.finalize() != checksum.digest {
                    throw TusUploadStoreError(
                        .checksumMismatch,
                        """
                        the \(checksum.algorithm) checksum of this PATCH's bytes does not match Upload-Checksum; \
                        they were discarded, send them again
                        """,
                        offset: start)
                }
                if bodyError != nil {
                    try file.truncate(to: start)
                    throw bodyError!
                }
            }
            written = try await flush(&pending, to: file, at: written)
            if written > info.offset { try await commit(&info, file: file, offset: written) }
        } catch {
            // Whatever was not committed is dropped, so the file matches the offset again.
            try? file.truncate(to: info.offset)
            throw error
        }
        if let bodyError {
            logger.info(
                "upload body ended early",
                metadata: ["upload": "\(id)", "offset": "\(info.offset)", "error": "\(bodyError)"])
            throw bodyError
        }
        try completeIfNeeded(&info)
        return info
    }

    /// Terminates upload `id`: its bytes and its info are deleted, finished or not.
    public func terminate(id: String) throws {
        guard Self.isValidID(id), FileManager.default.fileExists(atPath: infoPath(id)) else { throw notFound(id) }
        try lock(id)
        defer { unlock(id) }
        // The info file goes first: once it is gone the upload does not exist, whatever remains.
        unlink(infoPath(id))
        unlink(partPath(id))
        unlink(completedPath(of: id))
        try? TusDataFile.syncDirectory(directory)
        logger.info("upload terminated", metadata: ["upload": "\(id)"])
    }

    /// When the unfinished upload `info` expires under the current configuration: its recorded
    /// date (moved on by every commit), or, for one recorded while uploads did not expire, its
    /// creation plus the lifetime. Nil when it never expires (finished, or no lifetime set).
    public func expiry(of info: TusUploadInfo) -> Date? {
        guard !info.isComplete, let lifetime = configuration.incompleteLifetime else { return nil }
        return info.expiresAt ?? info.createdAt.addingTimeInterval(lifetime)
    }

    /// `now` plus the lifetime, rounded up to a whole second: the info file and `Upload-Expires`
    /// both keep whole seconds, and rounding down could make a short lifetime end at once.
    private func newExpiry(from now: Date) -> Date? {
        configuration.incompleteLifetime.map {
            Date(timeIntervalSince1970: (now.timeIntervalSince1970 + $0).rounded(.up))
        }
    }

    /// Removes unfinished uploads whose lifetime is over (their info and their bytes); returns
    /// how many. An upload a PATCH is writing is left alone: that PATCH moves its expiry on.
    @discardableResult
    public func removeExpired(now: Date = Date()) -> Int {
        var removed = 0
        for id in allIDs() {
            guard let info = try? readInfo(id), let expiresAt = expiry(of: info), expiresAt < now else { continue }
            guard (try? lock(id)) != nil else { continue }
            defer { unlock(id) }
            // Read again under the lock: a PATCH that just ended may have renewed it.
            guard let current = try? readInfo(id), let expiresAt = expiry(of: current), expiresAt < now else {
                continue
            }
            // The info file first, as in `terminate(id:)`: without it the upload is gone.
            unlink(infoPath(id))
            unlink(partPath(id))
            removed += 1
            logger.info("upload expired and removed", metadata: ["upload": "\(id)", "offset": "\(current.offset)"])
        }
        if removed > 0 { try? TusDataFile.syncDirectory(directory) }
        return removed
    }

    /// Removes expired uploads every ``Configuration/expirySweepInterval`` until the calling task
    /// is cancelled (the body of a server's service); returns at once when uploads never expire.
    public func runExpirySweeps() async {
        guard let interval = configuration.expirySweepInterval else { return }
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
            guard !Task.isCancelled else { return }
            _ = try? await TusStoreIO.run { self.removeExpired() }
        }
    }

    /// The ids of every upload in the folder, finished or not.
    public func allIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".info") else { return nil }
            let id = String(name.dropLast(".info".count))
            return Self.isValidID(id) ? id : nil
        }.sorted()
    }

    // MARK: Internals

    private func notFound(_ id: String) -> TusUploadStoreError {
        TusUploadStoreError(.notFound, "no upload with id \(id) (it was never created here, or it was terminated)")
    }

    private func lock(_ id: String) throws {
        let acquired = busy.withLock { $0.insert(id).inserted }
        guard acquired else {
            // Terminations and expiry sweeps delete the info file first, while they hold the
            // lock: an upload without it is gone, not busy.
            guard FileManager.default.fileExists(atPath: infoPath(id)) else { throw notFound(id) }
            throw TusUploadStoreError(
                .locked, "another request is writing upload \(id); wait for it to end, then send HEAD")
        }
    }

    private func unlock(_ id: String) {
        _ = busy.withLock { $0.remove(id) }
    }

    private func readInfo(_ id: String) throws -> TusUploadInfo {
        guard Self.isValidID(id), let data = FileManager.default.contents(atPath: infoPath(id)) else {
            throw notFound(id)
        }
        do {
            return try JSONDecoder.tusInfo.decode(TusUploadInfo.self, from: data)
        } catch {
            throw TusUploadStoreError(.storage, "the state of upload \(id) (\(infoPath(id))) is unreadable: \(error)")
        }
    }

    private func writeInfo(_ info: TusUploadInfo) throws {
        let data: Data
        do {
            data = try JSONEncoder.tusInfo.encode(info)
        } catch {
            throw TusUploadStoreError(.storage, "cannot encode the state of upload \(info.id): \(error)")
        }
        try TusDataFile.writeAtomically(data, to: infoPath(info.id), directory: directory)
    }

    /// Writes the gathered bytes at `offset`; returns the offset after them.
    private func flush(_ pending: inout ByteBuffer, to file: TusDataFile, at offset: Int64) async throws -> Int64 {
        guard pending.readableBytes > 0 else { return offset }
        let batch = pending
        pending = ByteBuffer()
        try await TusStoreIO.run { try file.write(batch, at: offset) }
        return offset + Int64(batch.readableBytes)
    }

    /// Syncs the data file, then records `offset`: the order that makes the offset trustworthy.
    /// Received bytes also move the expiry on, so an upload that makes progress never expires.
    private func commit(_ info: inout TusUploadInfo, file: TusDataFile, offset: Int64) async throws {
        try await TusStoreIO.run { try file.sync() }
        info.offset = offset
        if let expiresAt = newExpiry(from: Date()) { info.expiresAt = expiresAt }
        let snapshot = info
        try await TusStoreIO.run { try self.writeInfo(snapshot) }
    }

    /// Moves a finished upload's bytes to `<id>`. The info already says complete, so a crash
    /// before the rename is repaired by `finishRenameIfInterrupted` on the next look.
    private func completeIfNeeded(_ info: inout TusUploadInfo) throws {
        guard info.isComplete else { return }
        if FileManager.default.fileExists(atPath: partPath(info.id)) {
            guard rename(partPath(info.id), completedPath(of: info.id)) == 0 else {
                throw TusDataFile.failure("rename", path: partPath(info.id), errno: errno)
            }
            try TusDataFile.syncDirectory(directory)
            logger.info(
                "upload complete",
                metadata: ["upload": "\(info.id)", "bytes": "\(info.offset)", "filename": "\(info.filename ?? "")"])
        }
    }

    private func finishRenameIfInterrupted(_ id: String) {
        guard !FileManager.default.fileExists(atPath: completedPath(of: id)),
            FileManager.default.fileExists(atPath: partPath(id))
        else { return }
        if rename(partPath(id), completedPath(of: id)) == 0 { try? TusDataFile.syncDirectory(directory) }
    }

    /// Removes what a crash can leave behind: temporary info files, and data files whose upload
    /// was never recorded.
    private func tidy() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let known = Set(names.filter { $0.hasSuffix(".info") }.map { String($0.dropLast(".info".count)) })
        for name in names {
            if name.hasSuffix(".info.tmp") {
                unlink("\(directory)/\(name)")
            } else if name.hasSuffix(".part"), !known.contains(String(name.dropLast(".part".count))) {
                unlink("\(directory)/\(name)")
            }
        }
        for id in known where Self.isValidID(id) {
            if let info = try? readInfo(id), info.isComplete { finishRenameIfInterrupted(id) }
        }
    }
}

extension JSONEncoder {
    fileprivate static var tusInfo: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    fileprivate static var tusInfo: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
