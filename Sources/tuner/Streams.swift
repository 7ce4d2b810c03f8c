import ArgumentParser
import Foundation
import TunerAPI

/// `tuner streams …`: who watches what on the running server, and stopping a session.
struct StreamsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract: "Live sessions of the running server: who watches which channel, and stopping one.",
        subcommands: [List.self, Stop.self], defaultSubcommand: List.self)

    /// Live sessions exist only in a running server.
    static func client(_ target: Cache.Target) async throws -> ServerClient {
        guard let client = try await target.client() else {
            throw ValidationError("no Tuner server is running for this data folder; start one with `tuner serve`")
        }
        return client
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List live sessions with their viewers.")
        @OptionGroup var target: Cache.Target
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (status, body) = try await StreamsCommand.client(target).send(.streams)
            guard status == 200 else {
                throw CLIError("server answered \(status): \(String(decoding: body, as: UTF8.self))")
            }
            if json {
                print(String(decoding: body, as: UTF8.self))
                return
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let list = try decoder.decode(LiveStreamList.self, from: body)
            if list.streams.isEmpty { print("no live sessions") }
            for stream in list.streams {
                print(
                    "\(stream.id)\t\(stream.channelName) (channel \(stream.channelID))\t\(stream.profile)\t"
                        + "source \(stream.sourceName ?? stream.sourceID.map(String.init) ?? "-")\t"
                        + "in \(stream.upstreamBytesPerSecond / 1000) kB/s, "
                        + "out \(stream.downstreamBytesPerSecond / 1000) kB/s"
                )
                for viewer in stream.viewers {
                    print("\tviewer \(viewer.address)\(viewer.user.map { " (\($0))" } ?? "")\t\(viewer.bytes) bytes")
                }
                for failover in stream.failovers {
                    print("\tfailover to channel \(failover.toChannelID.map(String.init) ?? "-"): \(failover.reason)")
                }
            }
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a live session; its viewers' streams end.")
        @OptionGroup var target: Cache.Target
        @Argument(help: "The session's id, from `tuner streams`.") var id: String

        func run() async throws {
            let (status, body) = try await StreamsCommand.client(target).send(.stopStream(id: id))
            guard status == 204 else {
                throw CLIError("server answered \(status): \(String(decoding: body, as: UTF8.self))")
            }
            print("stopped \(id)")
        }
    }
}
