import Catalog
import Crypto
import Foundation
import LiveTV
import Logging
import MediaFormats
import Streaming
import Testing
import TunerAPI
import TunerStorage
import TunerTesting

@testable import TunerApp

/// The DVR's rows and retention on both engines: one programme is one recording however many
/// insert it, retention keeps the newest N and never a kept one (deleting the files), and a rule
/// goes and comes back through the store as it was.
@Suite struct DVRTests {
    static func withDVR(_ engine: StorageEngine, _ body: (DVR, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dvr-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestPostgres.withStateDatabase(engine, schemas: DataFolder.databaseSchemas) { database in
            let logger = Logger(label: "dvr-test")
            let catalog = database.catalogStore(logger: logger)
            let live = LiveSessions(
                settings: LiveSettings(), catalog: catalog, signer: StreamLinkSigner(key: SymmetricKey(size: .bits256)),
                fetchPolicy: .loopback, workDirectory: directory + "/live", logger: logger)
            let dvr = DVR(
                database: database, catalog: catalog, live: live, directory: directory + "/recordings",
                minimumFreeBytes: 0, logger: logger)
            try await body(dvr, directory + "/recordings")
            await live.closeClient()
        }
    }

    static func recording(_ start: Int64, rule: Int64, keep: Bool = false, state: Recording.State = .done) -> Recording
    {
        Recording(
            identity: "1:\(start):news", state: state, channelID: 1, channelName: "One", title: "News", start: start,
            stop: start + 600, recordStart: start, recordStop: start + 600, ruleIDs: [rule], keep: keep,
            files: [
                RecordingFile(name: "News/News - \(start).mp4", bytes: 10, format: "mp4", from: start, to: start + 600)
            ],
            createdAt: start)
    }

    @Test(
        "retention keeps the newest N of a rule and every kept one, deleting the others' files",
        arguments: StorageEngine.underTest)
    func retention(engine: StorageEngine) async throws {
        try await Self.withDVR(engine) { dvr, directory in
            let rule = try await dvr.store.addRule(
                RecordingRule(kind: .series, name: "News", title: "News", keepCount: 2))
            #expect(rule.id > 0)
            #expect(try await dvr.store.rules() == [rule])
            var ids: [Int64: Int64] = [:]
            for (start, keep) in [(1000 as Int64, true), (2000, false), (3000, false), (4000, false), (5000, false)] {
                let made = Self.recording(start, rule: rule.id, keep: keep)
                let (stored, inserted) = try await dvr.store.insert(made)
                #expect(inserted)
                ids[start] = stored.id
                let path = directory + "/" + made.files[0].name
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            }
            // The same programme again: the first row, not a second one.
            let (again, inserted) = try await dvr.store.insert(Self.recording(2000, rule: rule.id))
            #expect(!inserted && again.id == ids[2000])
            // Another rule's and a running recording are not this rule's to delete.
            _ = try await dvr.store.insert(Self.recording(500, rule: rule.id + 1))
            _ = try await dvr.store.insert(Self.recording(600, rule: rule.id, state: .recording))

            let running = try await dvr.store.recordings(in: .recording, startingBy: 600)
            #expect(running.map(\.start) == [600])
            #expect(try await dvr.store.recordings(in: .recording, startingBy: 599).isEmpty)
            try await dvr.applyRetention(rules: try await dvr.store.rules())
            let left = try await dvr.store.recordings().map(\.start)
            #expect(left.sorted() == [500, 600, 1000, 4000, 5000])
            for start in [2000, 3000] as [Int64] {
                #expect(!FileManager.default.fileExists(atPath: directory + "/News/News - \(start).mp4"))
            }
            #expect(FileManager.default.fileExists(atPath: directory + "/News/News - 1000.mp4"))
            #expect(try await dvr.store.removeRule(id: rule.id))
            #expect(try await !dvr.store.removeRule(id: rule.id))
        }
    }

    @Test("a rule is refused with the reason when it is incomplete", arguments: [StorageEngine.sqlite])
    func incompleteRules(engine: StorageEngine) async throws {
        try await Self.withDVR(engine) { dvr, _ in
            let cases: [(RuleRequest, String)] = [
                (RuleRequest(kind: .series), "needs a title"),
                (RuleRequest(kind: .series, title: "!!!"), "needs a title"),
                (RuleRequest(kind: .keyword, keyword: " "), "needs a keyword"),
                (RuleRequest(kind: .time, channelIDs: [], time: "09:00"), "needs its channels"),
                (RuleRequest(kind: .series, title: "x", keepCount: 0), "keepCount must be"),
                (RuleRequest(kind: .series, title: "x", paddingBeforeSeconds: -1), "paddingBeforeSeconds must be"),
                (RuleRequest(kind: .series, channelIDs: [42], title: "x"), "no live channel with id 42"),
            ]
            for (request, reason) in cases {
                do {
                    _ = try await dvr.addRule(request)
                    Issue.record("\(request) was accepted")
                } catch let error as FeatureError {
                    #expect(error.description.contains(reason), "\(error.description)")
                } catch {
                    Issue.record("\(error)")
                }
            }
            let rules = try await dvr.rules()
            #expect(rules.isEmpty)
        }
    }
}
