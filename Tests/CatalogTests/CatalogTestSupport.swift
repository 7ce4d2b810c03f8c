import Foundation
import Logging
import TunerStorage

@testable import Catalog

/// A catalog in memory (the store runs over any GRDB writer), with a fresh temporary folder for
/// the files a test writes, removed when the test is done.
final class TemporaryCatalog: Sendable {
    let directory: URL
    let store: SQLiteCatalogStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = SQLiteCatalogStore(
            database: try TunerDatabase.inMemory(schemas: [CatalogSchema.self]), logger: testLogger)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `text` to a file in the catalog's folder and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

let testLogger: Logger = {
    var logger = Logger(label: "catalog-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    logger.logLevel = .critical
    return logger
}()

enum Fixtures {
    /// Tests/CatalogTests/Fixtures.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// ../shared/data beside the repository.
    static var sharedData: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/data")
    }
}
