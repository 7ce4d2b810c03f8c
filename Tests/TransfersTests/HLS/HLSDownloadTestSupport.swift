import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import MediaFormats
import Testing
import Transfers
import TunerTesting

/// True when every tool is installed. Otherwise the test should return: a missing tool fails it
/// when `CI=true` (CI must have every tool, so a silent skip would hide lost coverage), and
/// elsewhere it prints "skipped: …" naming what to install.
func requireTools(_ names: String..., sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let missing = names.filter { ExternalCommand.path(of: $0) == nil }
    guard !missing.isEmpty else { return true }
    let message = missing.map { "\($0) is missing (\(ExternalCommandError.notInstalled($0)))" }.joined(separator: "; ")
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    } else {
        print("skipped: \(message)")
    }
    return false
}

/// A test origin, an HTTP client, a downloader and a scratch folder, all torn down afterwards.
struct DownloadHarness {
    let origin: TestOrigin
    let downloader: HLSDownloader
    /// A fresh folder for this test; downloads go to subfolders of it.
    let scratch: URL

    static func run(_ body: (DownloadHarness) async throws -> Void) async throws {
        let origin = try await TestOrigin.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var logger = Logger(label: "tuner.test.hls-download")
        logger.logLevel = .critical
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-hlsdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let harness = DownloadHarness(
            origin: origin, downloader: HLSDownloader(client: client, logger: logger), scratch: scratch)
        do {
            try await body(harness)
        } catch {
            try? await origin.shutdown()
            try? await client.shutdown()
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        try? await origin.shutdown()
        try await client.shutdown()
        try? FileManager.default.removeItem(at: scratch)
    }

    func url(_ path: String) -> URL { URL(string: origin.baseURL + path)! }

    /// Copies the fixture folder `folder` (e.g. `aes`) to a served folder of its own, with the
    /// lines of its `playlist` (default `index.m3u8`) edited by `edits` (whole-line text →
    /// replacement), so a test can put faults in the URIs. Returns the served path of `entry`
    /// (default: the edited playlist) in the copy.
    func servedCopy(
        of fixtures: HLSFixtures, folder: String, playlist: String = "index.m3u8", entry: String? = nil,
        edits: [String: String]
    ) throws -> String {
        let root = scratch.appendingPathComponent("origin").path
        let target = root + "/" + folder
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures.path(folder), toPath: target)
        let playlistPath = target + "/" + playlist
        var lines = try String(contentsOfFile: playlistPath, encoding: .utf8).components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            if let replacement = edits[line] { lines[index] = replacement }
        }
        try lines.joined(separator: "\n").write(toFile: playlistPath, atomically: true, encoding: .utf8)
        origin.serveDirectory(root)
        return "/static/\(folder)/" + (entry ?? playlist)
    }
}

/// The MD5 of the decoded audio and video ffmpeg gets from `input` (a URL or a local playlist):
/// decoding, not copying, so wrong keys, init sections or byte ranges change it.
func decodedMD5(_ input: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
    let result = try await ExternalCommand.run(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-allowed_extensions", "ALL", "-i", input, "-map", "0", "-f", "md5", "-"],
        timeout: .seconds(60))
    #expect(result.succeeded, "\(result.transcript)", sourceLocation: sourceLocation)
    #expect(result.errorOutput.isEmpty, "\(result.errorOutput)", sourceLocation: sourceLocation)
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Checks that every segment, key and init section the local playlist names is a local file (a
/// relative name in `directory`) holding exactly the bytes of the origin's file (`originFolder`,
/// the fixture folder the media playlist came from), byte ranges compared range by range.
///
/// `localPlaylist` is the local media playlist to check: `index.m3u8`, or `video.m3u8` and
/// `audio.m3u8` when the download has a separate audio rendition.
func expectLocalFilesMatchOrigin(
    directory: URL, originPlaylist: String, originFolder: String, localPlaylist: String = "index.m3u8",
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let local = try HLSPlaylist(
        parsing: try String(contentsOf: directory.appendingPathComponent(localPlaylist), encoding: .utf8))
    let original = try HLSPlaylist(parsing: try String(contentsOfFile: originPlaylist, encoding: .utf8))
    try #require(local.segments.count == original.segments.count, sourceLocation: sourceLocation)
    #expect(local.isEndList, sourceLocation: sourceLocation)

    func bytes(_ path: String, _ range: HLSByteRange?) throws -> Data {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let range else { return data }
        guard data.count >= range.offset + range.length else { return Data() }
        return data.subdata(in: range.offset..<(range.offset + range.length))
    }
    func originPath(_ uri: String) -> String {
        originFolder + "/" + (uri.split(separator: "?").first.map(String.init) ?? uri)
    }
    func localPath(_ uri: String) -> String? {
        // Relative names only: nothing may point back at the network.
        guard !uri.contains("/"), !uri.contains(":") else { return nil }
        return directory.appendingPathComponent(uri).path
    }
    func same(_ a: Data, _ b: Data) -> Bool { SHA256.hash(data: a) == SHA256.hash(data: b) && !a.isEmpty }

    for (index, (mine, theirs)) in zip(local.segments, original.segments).enumerated() {
        let path = try #require(
            localPath(mine.uri), "segment \(index) URI \(mine.uri) is not a local name", sourceLocation: sourceLocation)
        #expect(mine.byteRange == theirs.byteRange, sourceLocation: sourceLocation)
        #expect(
            same(try bytes(path, mine.byteRange), try bytes(originPath(theirs.uri), theirs.byteRange)),
            "segment \(index) differs from the origin's", sourceLocation: sourceLocation)
        if let map = mine.map, let theirMap = theirs.map {
            let mapPath = try #require(localPath(map.uri), sourceLocation: sourceLocation)
            #expect(
                same(try bytes(mapPath, map.byteRange), try bytes(originPath(theirMap.uri), theirMap.byteRange)),
                sourceLocation: sourceLocation)
        }
        #expect((mine.map == nil) == (theirs.map == nil), sourceLocation: sourceLocation)
        #expect(mine.keys.count == theirs.keys.count, sourceLocation: sourceLocation)
        for (key, theirKey) in zip(mine.keys, theirs.keys) {
            let keyPath = try #require(
                key.uri.flatMap(localPath), "key \(key.uri ?? "-") is not local", sourceLocation: sourceLocation)
            #expect(
                same(try bytes(keyPath, nil), try bytes(originPath(theirKey.uri ?? ""), nil)),
                sourceLocation: sourceLocation)
            #expect(key.iv == theirKey.iv, sourceLocation: sourceLocation)
        }
    }
}

/// Names of the files in `directory` (not recursive).
func fileNames(_ directory: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []
}

/// Collects progress reports across threads, and lets a test wait for one.
final class ProgressLog: Sendable {
    private struct State {
        var reports: [HLSDownloadProgress] = []
        var waiters: [(items: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedState(State())

    func record(_ progress: HLSDownloadProgress) {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.reports.append(progress)
            let due = state.waiters.filter { $0.items <= progress.completedItems }.map(\.continuation)
            state.waiters.removeAll { $0.items <= progress.completedItems }
            return due
        }
        due.forEach { $0.resume() }
    }

    var all: [HLSDownloadProgress] { state.withLock { $0.reports } }

    /// Returns once a report says at least `items` items are complete.
    func waitFor(completedItems items: Int) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.reports.contains(where: { $0.completedItems >= items }) { return true }
                state.waiters.append((items, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}
