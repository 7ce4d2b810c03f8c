import ArgumentParser
import Foundation
import MediaFormats

/// `tuner xmltv check FILE`: parses a guide and reports what it holds, without importing it.
struct XMLTV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xmltv", abstract: "Work with XMLTV guides.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse a guide and count its channels, programmes and warnings; exits 1 if it is empty.")
        @Argument(help: "Guide file (XMLTV, not gzipped).") var file: String
        @Option(help: "Warnings to print at most.") var maxWarnings = 20

        func run() async throws {
            guard let handle = FileHandle(forReadingAtPath: file) else { throw ValidationError("cannot open \(file)") }
            defer { try? handle.close() }
            let clock = ContinuousClock()
            let start = clock.now
            var parser = XMLTVParser()
            var printed = 0
            func report(_ event: XMLTVParser.Event) {
                if case .warning(let warning) = event, printed < maxWarnings {
                    printed += 1
                    print("warning: \(warning)")
                }
            }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                parser.feed(chunk, onEvent: report)
            }
            parser.finish(onEvent: report)
            let seconds =
                Double((clock.now - start).components.attoseconds) / 1e18
                + Double((clock.now - start).components.seconds)
            print(
                """
                \(parser.channelCount) channels, \(parser.programmeCount) programmes, \(parser.warningCount) \
                warnings in \(String(format: "%.3f", seconds)) s
                """
            )
            if parser.channelCount + parser.programmeCount == 0 { throw ExitCode.failure }
        }
    }
}
