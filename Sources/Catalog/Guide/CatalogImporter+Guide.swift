import Foundation
import Logging
import MediaFormats

extension CatalogImporter {
    /// Re-imports the guide of a source: an XMLTV source's own location, or an M3U source's guide
    /// URLs (`x-tvg-url`, or the ones the user set). Gzipped guides are read on the fly. Each
    /// download completes before the source's guide is swapped in one transaction, so a broken
    /// download keeps the previous guide.
    ///
    /// - Parameters:
    ///   - now: the current time, seconds since 1970; programmes that ended more than
    ///     `retention` seconds before it are skipped.
    ///   - languages: preferred languages for titles and descriptions, best first.
    @discardableResult
    public func refreshGuide(
        sourceID: Int64,
        now: Int64,
        retention: Int64 = 7 * 86_400,
        languages: [String] = [],
        progress: @escaping @Sendable (CatalogImportProgress) -> Void = { _ in }
    ) async throws -> GuideImportCounts {
        guard let source = try await store.source(id: sourceID) else { throw CatalogError.sourceNotFound(sourceID) }
        var logger = self.logger
        logger[metadataKey: "source"] = "\(sourceID)"
        let locations = source.kind == .xmltv ? [source.location] : source.epgURLs
        guard !locations.isEmpty else {
            throw CatalogError.unsupported("a source without guide URLs has no guide to import")
        }

        var paths: [(path: String, inflated: Bool)] = []
        var downloaded: [String] = []
        defer { for path in downloaded { try? FileManager.default.removeItem(atPath: path) } }
        do {
            for location in locations {
                if location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://") {
                    let downloader = SourceDownloader(
                        httpClient: httpClient, configuration: configuration, logger: logger)
                    let path = try await downloader.download(location) { bytes, total in
                        progress(
                            CatalogImportProgress(
                                sourceID: sourceID, phase: .downloading, bytes: bytes, totalBytes: total))
                    }
                    downloaded.append(path)
                    paths.append((path, false))
                } else {
                    let copy = try localSnapshot(of: location)
                    downloaded.append(copy)
                    paths.append((copy, false))
                }
                if let inflated = try inflatedCopy(of: paths[paths.count - 1].path) {
                    downloaded.append(inflated)
                    paths[paths.count - 1] = (inflated, true)
                }
            }
            let cutoff = now - retention
            let interval = max(1, configuration.progressInterval)
            let files = paths.map { (path: $0.path, reader: fileReader(inflated: $0.inflated)) }
            let counts = try await store.replaceGuide(ofSource: sourceID) { [files] sink in
                var entries = 0
                for (path, reader) in files {
                    try XMLTVFileImport.run(
                        path: path, reader: reader, into: sink, endingAfter: cutoff,
                        languages: languages
                    ) { bytes in
                        entries += 1
                        if entries % interval == 0 {
                            progress(
                                CatalogImportProgress(
                                    sourceID: sourceID, phase: .importing, bytes: bytes, entries: entries))
                        }
                    }
                }
            }
            if source.kind == .xmltv {
                try await store.setSourceStatus(id: sourceID, status: .ok, error: nil, refreshedAt: Date())
            }
            // New guide channels: the channels without a guide are matched by name again.
            await matchGuideAfterImport(logger: logger)
            progress(CatalogImportProgress(sourceID: sourceID, phase: .finished, entries: counts.programmes))
            logger.info(
                "Guide refreshed",
                metadata: [
                    "channels": "\(counts.channels)", "programmes": "\(counts.programmes)",
                    "skipped": "\(counts.skipped)",
                ])
            return counts
        } catch {
            logger.info("Guide refresh failed; previous guide kept", metadata: ["error": "\(error)"])
            if source.kind == .xmltv {
                try? await store.setSourceStatus(id: sourceID, status: .failed, error: "\(error)", refreshedAt: nil)
            }
            throw error
        }
    }
}
