import Foundation
import GRDB
import Testing
import TunerTesting

@testable import Catalog

/// Gzip sources are inflated whole, before the import's transaction, and damaged ones are refused:
/// a second member is read, trailing bytes and truncation are errors, never a hang or a half import.
@Suite("Gzip sources")
struct GzipImportTests {
    /// `gzip -c` of `text`, from the real tool.
    static func gzip(_ text: String, in directory: URL) async throws -> Data {
        let plain = directory.appendingPathComponent("plain-\(UUID().uuidString)")
        try Data(text.utf8).write(to: plain)
        let result = try await ExternalCommand.run("gzip", ["-c", "-n", plain.path])
        #expect(result.succeeded, "\(result.transcript)")
        return result.stdout
    }

    static func inflate(_ data: Data, in directory: URL, limit: Int64 = 1 << 30) throws -> String {
        let input = directory.appendingPathComponent("in-\(UUID().uuidString).gz")
        try data.write(to: input)
        let output = directory.appendingPathComponent("out-\(UUID().uuidString)").path
        _ = try GzipFile.inflate(path: input.path, to: output, limit: limit, chunkSize: 7)
        return String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self)
    }

    @Test func everyMemberIsInflatedAndZeroPaddingIsAllowed() async throws {
        let catalog = try TemporaryCatalog()
        let first = try await Self.gzip("#EXTM3U\n#EXTINF:-1,One\nhttp://a/1\n", in: catalog.directory)
        let second = try await Self.gzip("#EXTINF:-1,Two\nhttp://a/2\n", in: catalog.directory)
        #expect(
            try Self.inflate(first + second, in: catalog.directory)
                == "#EXTM3U\n#EXTINF:-1,One\nhttp://a/1\n#EXTINF:-1,Two\nhttp://a/2\n")
        #expect(
            try Self.inflate(first + Data(count: 512), in: catalog.directory) == "#EXTM3U\n#EXTINF:-1,One\nhttp://a/1\n"
        )
    }

    @Test func trailingBytesTruncationAndDamageAreErrors() async throws {
        let catalog = try TemporaryCatalog()
        let member = try await Self.gzip(
            String(repeating: "#EXTINF:-1,Channel\nhttp://a/b\n", count: 200), in: catalog.directory)
        #expect(throws: CatalogError.self) { try Self.inflate(member + Data("garbage".utf8), in: catalog.directory) }
        #expect(throws: CatalogError.self) {
            try Self.inflate(member + Data([0x1F, 0x8B, 0x08]), in: catalog.directory)
        }
        #expect(throws: CatalogError.self) { try Self.inflate(member.prefix(member.count - 4), in: catalog.directory) }
        #expect(throws: CatalogError.self) { try Self.inflate(member.prefix(member.count / 2), in: catalog.directory) }
        var damaged = member
        damaged[damaged.count / 2] ^= 0xFF
        #expect(throws: CatalogError.self) { try Self.inflate(damaged, in: catalog.directory) }
    }

    @Test func inflatingPastTheLimitIsRefused() async throws {
        let catalog = try TemporaryCatalog()
        let bomb = try await Self.gzip(String(repeating: "0", count: 4 << 20), in: catalog.directory)
        #expect(bomb.count < 64 << 10)
        #expect(throws: CatalogError.self) { try Self.inflate(bomb, in: catalog.directory, limit: 1 << 20) }
    }

    @Test(
        "A truncated .gz guide fails the refresh and keeps the previous guide; two members import whole",
        arguments: StorageEngine.underTest)
    func guideImport(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let start = 1_700_000_000
            func guide(_ channel: String, _ title: String) -> String {
                """
                <?xml version="1.0"?><tv><channel id="\(channel)"><display-name>\(channel)</display-name></channel>
                <programme channel="\(channel)" start="\(XMLTVTime.format(start))" stop="\(XMLTVTime.format(start + 3600))"><title>\(title)</title></programme></tv>
                """
            }
            let path = catalog.directory.appendingPathComponent("guide.xml.gz")
            let first = try await Self.gzip(guide("a.example", "First"), in: catalog.directory)
            let second = try await Self.gzip(guide("b.example", "Second"), in: catalog.directory)
            try (first + second).write(to: path)
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .xmltv, location: path.path))
            try await withImporter(catalog) { importer in
                let counts = try await importer.refreshGuide(sourceID: source.id, now: 0, retention: 0)
                #expect(counts.programmes == 2)

                try first.prefix(first.count - 6).write(to: path)
                await #expect(throws: CatalogError.self) {
                    try await importer.refreshGuide(sourceID: source.id, now: 0, retention: 0)
                }
                #expect(try await catalog.store.source(id: source.id)?.status == .failed)
            }
            let titles = try await catalog.texts("SELECT title FROM guideProgramme ORDER BY title").map { $0[0] }
            #expect(titles == ["First", "Second"])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: catalog.directory.path).filter {
                $0.hasSuffix(".inflated")
            }
            #expect(leftovers.isEmpty)
        }
    }
}

/// XMLTV's `YYYYMMDDhhmmss +0000`.
enum XMLTVTime {
    static func format(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))) + " +0000"
    }
}
