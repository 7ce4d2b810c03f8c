import ArgumentParser
import Foundation
import MediaFormats

/// `tuner playlist check FILE`: parses an HLS playlist and reports what a player would meet.
struct Playlist: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with HLS playlist files.",
        subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse an HLS playlist and report its warnings (exit 1 when it is invalid).")
        @Argument(help: "The playlist file.") var file: String
        @Flag(help: "Fail on the first violation of RFC 8216 instead of listing them all.") var strict = false
        @Option(
            name: .customLong("repeat"),
            help: "Parse (and serialize) this many times and print the time per run, for benchmarks.") var runs: Int = 1

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("cannot read \(file)") }
            let bytes = [UInt8](data)
            let configuration: HLSParser.Configuration = strict ? .strict : .lenient
            var playlist: HLSPlaylist
            do {
                playlist = try HLSPlaylist(parsing: bytes, configuration: configuration)
            } catch {
                throw CLIError("\(file): \(error)")
            }
            if runs > 1 {
                var parse = Duration.zero
                var serialize = Duration.zero
                let clock = ContinuousClock()
                for _ in 0..<runs {
                    parse += clock.measure { playlist = try! HLSPlaylist(parsing: bytes, configuration: configuration) }
                    serialize += clock.measure { _ = playlist.serializedBytes() }
                }
                let perParse = parse / runs
                let perSerialize = serialize / runs
                print(
                    """
                    parse \(Self.milliseconds(perParse)) ms, serialize \(Self.milliseconds(perSerialize)) ms per \
                    run (\(bytes.count) bytes, \(runs) runs)
                    """
                )
            }
            let kind =
                playlist.isMaster
                ? "master playlist, \(playlist.variants.count) variants"
                : "\(playlist.isLive ? "live" : "VOD") media playlist, \(playlist.segments.count) segments"
            print("\(file): \(kind)")
            for warning in playlist.warnings { print("warning: \(warning)") }
        }

        static func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
        }
    }
}
