import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import Transfers
import TunerAPI
import TunerApp

/// `tuner transfers [list|pause|resume|cancel|retry|rm|purge] [ID]`: the queue, on the running
/// server or in the data folder.
struct TransfersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfers",
        abstract: "List and manage downloads: list, pause, resume, cancel, retry, rm, purge.",
        discussion: "pause and resume without an ID act on every transfer. rm deletes a transfer and its file.")

    @Argument(help: "list (default), pause, resume, cancel, retry, rm or purge.") var action: String = "list"
    @Argument(help: "The transfer's id.") var id: Int64?
    @Flag(help: "Print JSON (list).") var json = false
    @OptionGroup var target: TransfersTarget

    func run() async throws {
        let actions = ["list", "pause", "resume", "cancel", "retry", "rm", "purge"]
        guard actions.contains(action) else {
            throw ValidationError("unknown action '\(action)'; use one of \(actions.joined(separator: ", "))")
        }
        if ["cancel", "retry", "rm"].contains(action), id == nil {
            throw ValidationError("\(action) needs a transfer id")
        }

        if let client = try await target.client() {
            let (status, body) =
                switch (action, id) {
                case ("pause", nil): try await client.send(.pauseAllTransfers)
                case ("resume", nil): try await client.send(.resumeAllTransfers)
                case ("purge", _): try await client.send(.purgeTransfers)
                case ("rm", let id?): try await client.send(.removeTransfer(id: id))
                case ("list", _), (_, nil): try await client.send(.transfers)
                case (let action, let id?):
                    try await client.send(.changeTransfer(id: id), body: ChangeTransferRequest(action: action))
                }
            guard (200..<300).contains(status) else {
                throw CLIError("server answered \(status): \(TransfersTarget.message(body))")
            }
            if action == "list" {
                try show(TransfersTarget.decodeList(body), raw: body)
            } else if let task = try? TransfersTarget.decoder().decode(TransferTask.self, from: body) {
                print("transfer \(task.id) is \(task.state.rawValue)")
            } else {
                print(TransfersTarget.message(body))
            }
            return
        }

        let local = try await target.localManager(configuration: TransferManager.Configuration(runsStoredTasks: false))
        // The same feature object the API uses; the user at the keyboard owns the local files.
        let downloads = Downloads(transfers: local.manager, localFiles: nil)
        do {
            switch (action, id) {
            case ("list", _):
                try show(await downloads.list().map(\.task), raw: nil)
            case ("pause", nil):
                await downloads.pauseAll()
                print("all transfers paused")
            case ("resume", nil):
                await downloads.resumeAll()
                print("all transfers resumed")
            case ("purge", _): print("\(try await downloads.purgeFinished()) finished transfers purged")
            case (let action, let id?) where ["pause", "resume", "cancel", "retry"].contains(action):
                _ = try await downloads.change(id: id, ChangeTransferRequest(action: action))
                let done = ["pause": "paused", "resume": "resumed", "cancel": "cancelled", "retry": "queued again"]
                print("transfer \(id) \(done[action] ?? action)")
            case ("rm", let id?):
                try await downloads.delete(id: id)
                print("transfer \(id) deleted")
            default: break
            }
            await local.shutdown()
        } catch let error as FeatureError {
            await local.shutdown()
            throw CLIError(error.description)
        }
    }

    private func show(_ tasks: [TransferTask], raw: Data?) throws {
        if json {
            if let raw {
                print(String(decoding: raw, as: UTF8.self))
                return
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(["transfers": tasks]), as: UTF8.self))
            return
        }
        if tasks.isEmpty {
            print("no transfers")
            return
        }
        for task in tasks {
            let size = task.totalBytes.map { "\(task.committedBytes)/\($0)" } ?? "\(task.committedBytes)"
            let error = task.errorReason.map { "  (\($0))" } ?? ""
            print("\(task.id)\t\(task.state.rawValue)\t\(size)\t\(task.destinationName)\t\(task.sourceURL)\(error)")
        }
    }
}

/// Where transfer commands act: the running server, or the data folder directly.
struct TransfersTarget: ParsableArguments {
    @OptionGroup var dataOptions: DataOptions
    @Option(help: "URL of a running server (env TUNER_SERVER; default: the one the data folder names).")
    var server: String?

    func client() async throws -> ServerClient? {
        try await ServerClient.find(server: server, dataDirectory: try await dataOptions.resolvedDataDirectory())
    }

    /// A manager on the data folder's queue, with the standard executors registered, not started.
    func localManager(configuration: TransferManager.Configuration) async throws -> TransferParts {
        var logger = Logger(label: "tuner")
        logger.logLevel = .warning
        let settings = try await dataOptions.configuration()
        var configuration = configuration
        configuration.stallTimeout = settings.transfersStallTimeoutSeconds
        configuration.tuning.syncInterval = Double(settings.transfersSyncIntervalMilliseconds) / 1000
        return try await TunerEngine.openTransfers(
            configuration: settings, managerConfiguration: configuration, logger: logger)
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    static func decodeList(_ body: Data) throws -> [TransferTask] {
        struct List: Decodable { var transfers: [TransferTask] }
        return try decoder().decode(List.self, from: body).transfers
    }

    /// The `message` (or Hummingbird's `error.message`) of a JSON answer, else its text.
    static func message(_ body: Data) -> String {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            if let message = object["message"] as? String { return message }
            if let error = object["error"] as? [String: Any], let message = error["message"] as? String {
                return message
            }
        }
        return String(decoding: body, as: UTF8.self)
    }
}
