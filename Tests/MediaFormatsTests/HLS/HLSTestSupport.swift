import Foundation
import MediaFormats
import Testing

/// Helpers shared by the HLS tests.
enum HLSTestSupport {
    /// `<repo>/../shared/data`: CI clones the repository with `shared` beside it. Symlinks are
    /// resolved first, so the tests also find it when built from a scratch package that links
    /// this folder.
    static let sharedDataDirectory: URL = {
        if let override = ProcessInfo.processInfo.environment["TUNER_SHARED_DATA"] {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        let testFile = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        let repository =
            testFile
            .deletingLastPathComponent()  // HLS
            .deletingLastPathComponent()  // MediaFormatsTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository root
        return repository.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }()

    /// What `serialized()` must give for `text`: LF line endings, no trailing blanks on a line,
    /// a final LF, no byte order mark.
    static func normalized(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var output: [UInt8] = []
        var line: [UInt8] = []
        var index = bytes.startIndex
        func flush() {
            while let last = line.last, last == 0x20 || last == 0x09 { line.removeLast() }
            output.append(contentsOf: line)
            output.append(0x0A)
            line.removeAll()
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A {
                flush()
            } else if byte == 0x0D {
                flush()
                if bytes.index(after: index) < bytes.endIndex, bytes[bytes.index(after: index)] == 0x0A {
                    index = bytes.index(after: index)
                }
            } else {
                line.append(byte)
            }
            index = bytes.index(after: index)
        }
        if !line.isEmpty { flush() }
        return output
    }

    static func normalized(_ text: String) -> String {
        String(decoding: normalized(Array(text.utf8)), as: UTF8.self)
    }

    /// Parses `text` strictly, recording the error as a test issue instead of throwing.
    static func parse(
        _ text: String, configuration: HLSParser.Configuration = .strict,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HLSPlaylist? {
        do {
            return try HLSPlaylist(parsing: text, configuration: configuration)
        } catch {
            Issue.record("unexpected parse error: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The error a strict parse of `text` throws, nil when it parses.
    static func parseError(_ text: String, configuration: HLSParser.Configuration = .strict) -> HLSParseError? {
        do {
            _ = try HLSPlaylist(parsing: text, configuration: configuration)
            return nil
        } catch {
            return error
        }
    }
}
