import Foundation
import MediaFormats
import Testing
import Transfers
import TunerAPI
import TunerApp

/// The Downloads and CacheAdmin feature objects: one set of checks and one error type for the API,
/// the CLI and the web app, and a stream of what changed. No sockets: nothing here fetches.
@Suite struct DownloadsAndCacheAdminTests {
    static func engine(allowFetch: FetchPolicy = .any) async throws -> (TunerEngine, String) {
        let folder = NSTemporaryDirectory() + "tuner-features-\(UUID().uuidString)"
        var configuration = TunerConfiguration(port: 0, dataDirectory: folder)
        configuration.allowFetch = allowFetch
        return (try await TunerEngine(configuration: configuration), folder)
    }

    /// The kind of the FeatureError `body` throws; nil when it throws nothing (or something else).
    func failure(_ body: () async throws -> Void) async -> FeatureError.Kind? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? FeatureError)?.kind
        }
    }

    @Test func uploadsReadOnlyFromTheFilesRootAndRemoteURLsFollowTheFetchPolicy() async throws {
        let (engine, folder) = try await Self.engine(allowFetch: .loopback)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let upload = AddTransferRequest(
            url: "/etc/hostname", kind: "upload-plain", properties: ["destinationURL": "http://127.0.0.1:9/x"])
        #expect(await failure { _ = try await engine.downloads.add([upload]) } == .forbidden)
        let elsewhere = AddTransferRequest(url: "http://10.1.2.3/film.mkv", paused: true)
        #expect(await failure { _ = try await engine.downloads.add([elsewhere]) } == .forbidden)
        #expect(await failure { _ = try await engine.downloads.add([]) } == .invalid)
        #expect(await engine.downloads.list().isEmpty, "nothing was queued")
        try await engine.shutdown()
    }

    @Test func changesAreCheckedAndPublished() async throws {
        let (engine, folder) = try await Self.engine()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let downloads = engine.downloads
        let changes = downloads.changes()
        let added = try await downloads.add([AddTransferRequest(url: "http://127.0.0.1:9/a.bin", paused: true)])
        let id = try #require(added.first?.id)
        #expect(try await downloads.entry(id: id).task.state == .paused)
        #expect(
            await failure { _ = try await downloads.change(id: id, ChangeTransferRequest(action: "explode")) }
                == .invalid)
        #expect(
            await failure { _ = try await downloads.change(id: id + 99, ChangeTransferRequest(action: "pause")) }
                == .notFound)
        #expect(
            await failure { _ = try await downloads.change(id: id, ChangeTransferRequest(action: "position")) }
                == .invalid)
        var seen: [Int64] = []
        for await event in changes {
            if case .changed(let task) = event { seen.append(task.id) }
            if seen.contains(id) { break }
        }
        #expect(seen.contains(id), "the addition was published")
        try await downloads.delete(id: id)
        #expect(await failure { _ = try await downloads.entry(id: id) } == .notFound)
        try await engine.shutdown()
    }

    @Test func cacheAdminRefusesBadInputAndPublishesWhatItChanged() async throws {
        let (engine, folder) = try await Self.engine(allowFetch: .loopback)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let admin = engine.cacheAdmin
        let changes = admin.changes()
        #expect(await failure { _ = try admin.trim(downTo: -1) } == .invalid)
        #expect(
            await failure {
                _ = try admin.startPreload(PreloadRequest(url: "http://127.0.0.1:9/a", bytes: 10, seconds: 5))
            } == .invalid)
        #expect(await failure { _ = try admin.startPreload(PreloadRequest(url: "http://10.1.2.3/a")) } == .forbidden)
        #expect(
            await failure {
                _ = try admin.export(CacheResourceRequest(url: "http://127.0.0.1:9/a", path: "/etc/passwd"))
            } == .forbidden)
        #expect(await failure { _ = try admin.preload(id: "nope") } == .notFound)
        try admin.clear()
        let report = try admin.trim()
        #expect(report.bytes == 0)
        #expect(try admin.pin(CacheResourceRequest(url: "http://127.0.0.1:9/a", pinned: false)) == false)
        var received: [CacheAdmin.Change] = []
        for await change in changes {
            received.append(change)
            if received.count == 3 { break }
        }
        #expect(received == [.cleared, .trimmed(freedBytes: 0), .pinned(url: "http://127.0.0.1:9/a", pinned: false)])
        #expect(admin.statistics().cache.entries == 0)
        try await engine.shutdown()
    }
}
