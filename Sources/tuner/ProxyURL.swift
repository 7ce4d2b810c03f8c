import ArgumentParser
import Foundation
import Streaming
import TunerApp

/// `tuner proxy-url`: prints the signed proxy URL for an origin URL, without a running server.
struct ProxyURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-url",
        abstract: "Print the proxy URL of an origin URL (signed with the data folder's secret).")

    @Argument(help: "The origin URL (http or https).")
    var url: String
    @Option(name: .customLong("header"), help: "A header sent upstream, as 'Name: value' (repeatable).")
    var headers: [String] = []
    @OptionGroup var dataOptions: DataOptions
    @Option(
        help:
            """
            Base URL of the server the proxy URL points at (default: the running server's, else \
            http://127.0.0.1:$TUNER_PORT or 8080).
            """
    )
    var base: String?

    func run() async throws {
        guard let origin = URL(string: url) else { throw ValidationError("'\(url)' is not a URL") }
        let parsed = try headers.map(parseHeader)
        let folder = try DataFolder(path: try await dataOptions.resolvedDataDirectory())
        let signer = StreamLinkSigner(key: try folder.loadOrCreateSecret())
        let baseURL =
            base ?? runningServerAddress(folder)
            ?? "http://127.0.0.1:\(ProcessInfo.processInfo.environment["TUNER_PORT"] ?? "8080")"
        do {
            print(try signer.proxyURL(for: StreamLink(url: origin, headers: parsed), baseURL: baseURL))
        } catch {
            throw ValidationError(error.description)
        }
    }

    private func runningServerAddress(_ folder: DataFolder) -> String? {
        (try? String(contentsOfFile: folder.serverAddressPath, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}

/// Parses `Name: value`.
func parseHeader(_ text: String) throws -> StreamHeader {
    guard let colon = text.firstIndex(of: ":") else {
        throw ValidationError("--header must look like 'Name: value', got '\(text)'")
    }
    let name = text[..<colon].trimmingCharacters(in: .whitespaces)
    let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    return StreamHeader(name: name, value: value)
}
