import ArgumentParser
import Foundation
import MediaFormats

/// `tuner m3u check FILE`: parses a playlist and reports what a Tuner import would make of it.
struct M3U: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "m3u", abstract: "Work with M3U playlists.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse a playlist and list its warnings; exits 1 if it has no entries.")
        @Argument(help: "Playlist file.") var file: String
        @Option(help: "Warnings to print at most.") var maxWarnings = 20

        func run() async throws {
            guard let file = FileHandle(forReadingAtPath: self.file) else {
                throw ValidationError("cannot open \(self.file)")
            }
            defer { try? file.close() }
            var parser = M3UParser()
            var printed = 0
            var withHeaders = 0
            var withCatchup = 0
            func report(_ event: M3UParser.Event) {
                switch event {
                case .entry(let entry):
                    if !entry.httpHeaders.isEmpty { withHeaders += 1 }
                    if entry.catchup != nil || entry.catchupSource != nil { withCatchup += 1 }
                case .warning(let warning):
                    if printed < maxWarnings {
                        printed += 1
                        print("line \(warning.line): \(warning.kind) \(warning.detail)")
                    }
                case .header: break
                }
            }
            while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
                parser.feed(chunk, onEvent: report)
            }
            parser.finish(onEvent: report)
            print(
                """
                \(parser.entryCount) entries, \(parser.warningCount) warnings, \(withHeaders) with headers, \
                \(withCatchup) with catch-up
                """
            )
            if let urls = parser.header?.tvgURLs, !urls.isEmpty { print("guides: \(urls.joined(separator: ", "))") }
            if parser.entryCount == 0 { throw ExitCode.failure }
        }
    }
}
