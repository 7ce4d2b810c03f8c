import ArgumentParser
import Foundation
import Logging
import TunerAPI
import TunerApp

/// `tuner cluster …`: the nodes sharing this Tuner's PostgreSQL database.
struct ClusterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "The nodes of a cluster on one PostgreSQL database.",
        subcommands: [Status.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the nodes alive now: address, heartbeat, load and the live channels each reads.",
            discussion: """
                Reads the cluster's rows in the database --database names (the nodes need no other \
                way in). A node is listed while its last heartbeat is younger than --node-timeout.
                """)
        @OptionGroup var dataOptions: DataOptions
        @Option(
            name: .customLong("node-timeout"),
            help: "A node whose heartbeat is older is gone (default 5s, as `tuner serve`).")
        var nodeTimeout: String?
        @Flag(help: "Print the answer as JSON (as GET /api/v1/cluster).") var json = false

        func run() async throws {
            let configuration = try await dataOptions.configuration()
            var timeout: Double?
            if let nodeTimeout {
                guard let seconds = Double(nodeTimeout.replacingOccurrences(of: "s", with: "")), seconds > 0,
                    seconds <= 86_400
                else {
                    throw ValidationError("--node-timeout must be seconds, like 5 or 10s")
                }
                timeout = seconds
            }
            var logger = Logger(label: "tuner")
            logger.logLevel = .warning
            let answer = try await TunerEngine.clusterNodes(
                configuration: configuration, nodeTimeout: timeout, logger: logger)
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(answer), as: UTF8.self))
                return
            }
            print("NODE\tADVERTISE\tHEARTBEAT\tSESSIONS\tVIEWERS\tTRANSFERS\tCHANNELS")
            for node in answer.nodes {
                let channels = node.channels.map(String.init).joined(separator: ",")
                print(
                    "\(node.id)\t\(node.advertise)\t\(String(format: "%.1fs ago", node.secondsSinceHeartbeat))\t"
                        + "\(node.sessions)\t\(node.viewers)\t\(node.transfers)\t\(channels.isEmpty ? "-" : channels)")
            }
            print("\(answer.nodes.count) node(s)")
        }
    }
}
