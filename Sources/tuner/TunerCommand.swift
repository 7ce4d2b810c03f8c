import ArgumentParser

/// The `tuner` command line: thin wrappers around TunerApp and TunerServer.
@main
struct TunerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tuner",
        abstract: "A caching stream proxy and IPTV gateway.",
        subcommands: [Serve.self, ProxyURL.self, Cache.self, Playlist.self, Sources.self, Channels.self, Guide.self, M3U.self, XMLTV.self, Download.self, Upload.self, TransfersCommand.self]
    )
}

/// The data folder option shared by every command.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder (env TUNER_DATA, default ./.tuner).")
    var data: String?

    func resolvedDataDirectory() -> String {
        data ?? ProcessInfo.processInfo.environment["TUNER_DATA"] ?? ".tuner"
    }
}

import Foundation
