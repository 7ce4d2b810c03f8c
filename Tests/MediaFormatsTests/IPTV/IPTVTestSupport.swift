import Foundation
import MediaFormats

/// Helpers for the IPTV tests: the shared real-world corpora and chunked parsing.
enum IPTVTestSupport {
    /// `<repo>/../shared/data`, found from this file's location (symlinks resolved so a scratch
    /// package that links the test folder still finds the repository's neighbour).
    static let dataDirectory: URL = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // IPTV
        .deletingLastPathComponent()  // MediaFormatsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("../shared/data")
        .standardizedFileURL

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: dataDirectory.appendingPathComponent(relativePath))
    }

    /// Every file under `relativeDirectory` whose name ends in `suffix`, sorted.
    static func files(under relativeDirectory: String, suffix: String) -> [URL] {
        let root = dataDirectory.appendingPathComponent(relativeDirectory)
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        return enumerator.compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(suffix) }
            .sorted { $0.path < $1.path }
    }

    /// Parses `bytes` fed in chunks of `chunkSize`, collecting every event.
    static func parse(_ bytes: [UInt8], chunkSize: Int) -> M3UPlaylist {
        var parser = M3UParser()
        var playlist = M3UPlaylist()
        let collect: (M3UParser.Event) -> Void = { event in
            switch event {
            case .header(let header): playlist.header = header
            case .entry(let entry): playlist.entries.append(entry)
            case .warning(let warning): playlist.warnings.append(warning)
            }
        }
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            parser.feed(bytes[start..<end], onEvent: collect)
            start = end
        }
        parser.finish(onEvent: collect)
        return playlist
    }

    static func parse(_ text: String, chunkSize: Int) -> M3UPlaylist {
        parse(Array(text.utf8), chunkSize: chunkSize)
    }

    /// Counts lines that start (after leading blanks) with `#EXTINF`, independently of the parser.
    static func countExtInfLines(_ data: Data) -> Int {
        var count = 0
        var atLineStart = true
        var index = data.startIndex
        let pattern = Array("#EXTINF".utf8)
        while index < data.endIndex {
            let byte = data[index]
            if byte == 0x0A || byte == 0x0D {
                atLineStart = true
            } else if atLineStart, byte == 0x20 || byte == 0x09 {
                // leading blanks
            } else {
                if atLineStart, data.count - (index - data.startIndex) >= pattern.count,
                    data[index..<(index + pattern.count)].elementsEqual(pattern)
                {
                    count += 1
                }
                atLineStart = false
            }
            index += 1
        }
        return count
    }
}
