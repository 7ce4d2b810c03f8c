import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

/// Downloads a source to a temporary file, streaming, and refuses anything incomplete.
///
/// Downloading first (rather than parsing straight into the database) keeps the catalog's write
/// transaction as short as parsing a local file, however slow the provider is, and lets the
/// download be checked for truncation before anything is replaced.
struct SourceDownloader: Sendable {
    let httpClient: HTTPClient
    let configuration: CatalogImporter.Configuration
    let logger: Logger

    /// Downloads `url` into a new file in the temporary directory and returns its path. A
    /// transient failure (no answer, a reset, 408/429/5xx, a truncated body) is tried again as the
    /// configuration's ``RetryPolicy`` says. Each try, body included, gets the configuration's
    /// `requestTimeout` (``ImportDeadline``); one out of time is not tried again.
    func download(
        _ url: String,
        headers: [CatalogHeader] = [],
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws -> String {
        try await configuration.retryPolicy.run {
            try await ImportDeadline.run(
                within: configuration.requestTimeout, what: "the download from \(Self.redacted(url))"
            ) {
                try await downloadOnce(url, headers: headers, progress: progress)
            }
        } transience: { error in
            (error as? CatalogError)?.isTransient
        } onRetry: { error, failures, delay in
            logger.info(
                "source download failed; trying again",
                metadata: [
                    "url": "\(Self.redacted(url))", "error": "\(error)", "failures": "\(failures)", "delay": "\(delay)",
                ])
        }
    }

    private func downloadOnce(
        _ url: String,
        headers: [CatalogHeader],
        progress: (Int64, Int64?) -> Void
    ) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        let response: HTTPClientResponse
        do {
            // Every hop, redirects included, passes the fetch policy's gate.
            response = try await httpClient.execute(
                request, gate: FetchGate(policy: configuration.fetchPolicy), timeout: configuration.requestTimeout,
                logger: logger
            ).response
        } catch let error as FetchError {
            throw CatalogError.fetchFailed("\(error)", transient: false)
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            // Not transient: a retry would multiply the import's time limit.
            throw ImportLimits.tooSlow("the download from \(Self.redacted(url))")
        } catch {
            throw CatalogError.fetchFailed("\(error)", transient: true)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            throw CatalogError.fetchFailed(
                "HTTP \(status) \(response.status.reasonPhrase) from \(Self.redacted(url))",
                transient: status == 408 || status == 429 || (500...599).contains(status))
        }
        let expected = response.headers.first(name: "content-length").flatMap { Int64($0) }
        let path = configuration.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).download").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CatalogError.fetchFailed("cannot create \(path)")
        }
        var succeeded = false
        defer { if !succeeded { try? FileManager.default.removeItem(atPath: path) } }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var received: Int64 = 0
        var lastReport: Int64 = 0
        do {
            for try await var chunk in response.body {
                received += Int64(chunk.readableBytes)
                guard received <= configuration.maxDownloadBytes else {
                    throw ImportLimits.tooLarge(
                        "the download from \(Self.redacted(url))", limit: configuration.maxDownloadBytes)
                }
                if let bytes = chunk.readBytes(length: chunk.readableBytes) {
                    try handle.write(contentsOf: bytes)
                }
                if received - lastReport >= 1 << 20 {
                    lastReport = received
                    progress(received, expected)
                }
            }
        } catch let error as CatalogError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw ImportLimits.tooSlow("the download from \(Self.redacted(url))")
        } catch {
            // A reset or timeout mid-body: what arrived is not a playlist to trust.
            throw CatalogError.fetchFailed("the download broke off after \(received) bytes: \(error)", transient: true)
        }
        if let expected, expected != received {
            throw CatalogError.truncated(expected: expected, received: received)
        }
        guard received > 0 else { throw CatalogError.emptyImport }
        progress(received, expected)
        succeeded = true
        return path
    }

    /// The URL without query and credentials, for messages that end up in logs and the UI.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "the source" }
        components.user = nil
        components.password = nil
        components.query = nil
        return components.string ?? "the source"
    }
}
