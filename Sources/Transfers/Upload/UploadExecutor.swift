import AsyncHTTPClient
import Foundation
import Logging
import NIOHTTP1

/// Runs upload tasks: `upload-tus` with ``TusClient`` (resumable: the server's offset is the
/// committed one), `upload-plain` with ``PlainHTTPUploader`` (one PUT or POST, from byte 0 on
/// every attempt).
///
/// A task's `sourceURL` is the local file's path; its `destinationURL` property is where it goes
/// (the tus creation endpoint, or the PUT/POST target); `method` may be `POST` for plain uploads.
/// The tus upload's own URL is kept in the `uploadURL` property once created, so a restart
/// resumes the same upload.
public struct UploadExecutor: TransferExecutor {
    public let httpClient: HTTPClient
    public var tusConfiguration: TusClient.Configuration

    public init(httpClient: HTTPClient, tusConfiguration: TusClient.Configuration = TusClient.Configuration()) {
        self.httpClient = httpClient
        self.tusConfiguration = tusConfiguration
    }

    public var kinds: [TransferKind] { [.uploadTus, .uploadPlain] }

    public func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome {
        let path = Self.filePath(task)
        guard let destination = task.properties["destinationURL"].flatMap(URL.init(string:)) else {
            throw TransferError.permanent("the upload has no destinationURL; add it again with a target URL")
        }
        let size: Int64
        do {
            size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw TransferError.permanent(
                "cannot read \(path): \(error.localizedDescription); check that the file exists")
        }
        let headers = Dictionary(task.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        if task.kind == .uploadPlain {
            return try await plainUpload(
                task, path: path, size: size, to: destination, headers: headers, context: context)
        }
        return try await tusUpload(
            task, path: path, size: size, endpoint: destination, headers: headers, context: context)
    }

    private func tusUpload(
        _ task: TransferTask, path: String, size: Int64, endpoint: URL, headers: [String: String],
        context: TransferContext
    ) async throws -> TransferOutcome {
        let client = TusClient(
            httpClient: httpClient, configuration: tusConfiguration, fetchGate: context.fetchGate,
            logger: context.logger)
        var uploadURL = task.properties["uploadURL"].flatMap(URL.init(string:))
        if uploadURL == nil {
            let created = try await client.create(
                endpoint: endpoint, fileSize: size, metadata: ["filename": (path as NSString).lastPathComponent],
                headers: headers)
            // Kept before any byte is sent, so a restart resumes this upload instead of starting another.
            try await context.commit(
                TransferCheckpoint(
                    committedBytes: 0, totalBytes: size, etag: nil, lastModified: nil,
                    properties: ["uploadURL": created.absoluteString]),
                note: "created \(created.absoluteString)")
            uploadURL = created
        }
        guard let uploadURL else { throw TransferError.permanent("no upload URL") }
        let confirmed: Int64
        do {
            confirmed = try await client.upload(file: path, to: uploadURL, headers: headers) { progress in
                // Progress is what the server confirmed; bytes still in a PATCH only show liveness.
                if progress.bytesSent > progress.bytesConfirmed { context.activity() }
                context.progress(bytes: progress.bytesConfirmed, total: progress.totalBytes)
            }
        } catch let error as TransferError where error.status == 404 || error.status == 410 {
            // The server forgot the upload (expired or removed): the next attempt creates another.
            try await context.commit(
                TransferCheckpoint(
                    committedBytes: 0, totalBytes: size, etag: nil, lastModified: nil, properties: ["uploadURL": nil]),
                note:
                    """
                    restarted from byte 0: the server no longer has \(uploadURL.absoluteString) (HTTP \
                    \(error.status ?? 0))
                    """
            )
            throw TransferError.transient("the server no longer has the upload; starting a new one")
        }
        try await context.commit(
            TransferCheckpoint(committedBytes: confirmed, totalBytes: size, etag: nil, lastModified: nil))
        return TransferOutcome(resultName: uploadURL.absoluteString, bytes: confirmed)
    }

    private func plainUpload(
        _ task: TransferTask, path: String, size: Int64, to url: URL, headers: [String: String],
        context: TransferContext
    ) async throws -> TransferOutcome {
        let uploader = PlainHTTPUploader(httpClient: httpClient, fetchGate: context.fetchGate, logger: context.logger)
        let method: HTTPMethod = task.properties["method"]?.uppercased() == "POST" ? .POST : .PUT
        let response = try await uploader.upload(file: path, to: url, method: method, headers: headers) { progress in
            context.progress(bytes: progress.bytesSent, total: progress.totalBytes)
        }
        guard (200..<300).contains(response.status) else {
            let retryAfter = response.header("Retry-After").flatMap(TransferError.parseRetryAfter)
            throw TransferError.classify(status: response.status, retryAfter: retryAfter)
        }
        try await context.commit(
            TransferCheckpoint(committedBytes: size, totalBytes: size, etag: nil, lastModified: nil))
        return TransferOutcome(resultName: url.absoluteString, bytes: size)
    }

    /// A cancelled tus upload is terminated on the server; a plain one left nothing behind.
    public func discard(_ task: TransferTask, context: TransferContext) async throws {
        try? await terminate(task, context: context)
    }

    /// Deleting a finished tus upload terminates it on the server (tus termination).
    public func deleteResult(_ task: TransferTask, context: TransferContext) async throws {
        try await terminate(task, context: context)
    }

    private func terminate(_ task: TransferTask, context: TransferContext) async throws {
        guard task.kind == .uploadTus, let uploadURL = task.properties["uploadURL"].flatMap(URL.init(string:)) else {
            return
        }
        let headers = Dictionary(task.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        try await TusClient(
            httpClient: httpClient, configuration: tusConfiguration, fetchGate: context.fetchGate,
            logger: context.logger
        )
        .terminate(uploadURL, headers: headers)
    }

    /// The local file: a path, or a file:// URL.
    static func filePath(_ task: TransferTask) -> String {
        if let url = URL(string: task.sourceURL), url.isFileURL { return url.path }
        return task.sourceURL
    }
}

/// Every executor Tuner ships, for a manager to register.
public enum TransferExecutors {
    public static func standard(httpClient: HTTPClient) -> [any TransferExecutor] {
        [
            FileDownloadExecutor(httpClient: httpClient), HLSDownloadExecutor(httpClient: httpClient),
            UploadExecutor(httpClient: httpClient),
        ]
    }
}
