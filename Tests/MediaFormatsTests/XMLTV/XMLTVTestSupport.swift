import Foundation
import MediaFormats

/// Helpers for the XMLTV tests: the shared real-world guides and chunked parsing.
enum XMLTVTestSupport {
    /// `<repo>/../shared/data`, found from this file's location (symlinks resolved).
    static let dataDirectory: URL = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // XMLTV
        .deletingLastPathComponent()  // MediaFormatsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("../shared/data")
        .standardizedFileURL

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: dataDirectory.appendingPathComponent(relativePath))
    }

    /// Parses `bytes` fed in chunks of `chunkSize`.
    static func parse(_ bytes: [UInt8], chunkSize: Int, options: XMLTVParser.Options = .init()) -> XMLTVGuide {
        var parser = XMLTVParser(options: options)
        var guide = XMLTVGuide()
        let collect: (XMLTVParser.Event) -> Void = { event in
            switch event {
            case .channel(let channel): guide.channels.append(channel)
            case .programme(let programme): guide.programmes.append(programme)
            case .warning(let warning): guide.warnings.append(warning)
            }
        }
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            parser.feed(bytes[start..<end], onEvent: collect)
            start = end
        }
        parser.finish(onEvent: collect)
        return guide
    }

    static func parse(_ text: String, chunkSize: Int) -> XMLTVGuide {
        parse(Array(text.utf8), chunkSize: chunkSize)
    }

    /// Counts start tags `<name` followed by a blank, `>` or `/`, independently of the parser
    /// (outside comments, which the corpora use to annotate programmes).
    static func countStartTags(_ name: String, in data: Data) -> Int {
        var text = String(decoding: data, as: UTF8.self)
        while let open = text.range(of: "<!--") {
            let close = text.range(of: "-->", range: open.upperBound..<text.endIndex)?.upperBound ?? text.endIndex
            text.removeSubrange(open.lowerBound..<close)
        }
        let bytes = Array(text.utf8)
        let pattern = Array("<\(name)".utf8)
        var count = 0
        var index = 0
        while index + pattern.count < bytes.count {
            if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                let next = bytes[index + pattern.count]
                if next == 0x20 || next == 0x3E || next == 0x2F || next == 0x0A || next == 0x09 || next == 0x0D {
                    count += 1
                }
            }
            index += 1
        }
        return count
    }
}
