import Catalog
import Foundation
import NIOCore

extension TunerConfiguration {
    /// The catalog importer's bounds from these settings: `--import-max-size`, `--import-timeout`
    /// and `--provider-answer-max-size`; downloads wait in the data folder's `imports/`.
    public var importerConfiguration: CatalogImporter.Configuration {
        let timeout = min(max(importTimeoutSeconds, 0.001), 365 * 86_400)
        var importer = CatalogImporter.Configuration(
            requestTimeout: .nanoseconds(Int64(timeout * 1_000_000_000)), maxDownloadBytes: importMaxSize,
            temporaryDirectory: URL(fileURLWithPath: (dataDirectory as NSString).standardizingPath + "/imports"))
        importer.maxProviderAnswerBytes = providerAnswerMaxSize
        return importer
    }
}
