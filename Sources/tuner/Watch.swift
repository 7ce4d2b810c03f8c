import ArgumentParser
import Catalog
import Foundation
import ServerLink
import Synchronization
import Transfers
import TunerAPI

/// `tuner watch`: the running server's downloads, uploads and imports as they happen, from its
/// live events (`/api/v1/events` through ``ServerEventStream``): progress bars on a terminal,
/// plain lines otherwise. It reconnects on its own when the server goes away and comes back, and
/// reloads the list when it may have missed something.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow the running server's downloads, uploads and imports live.",
        discussion: """
            Shows a bar per running transfer and a line per import step, as the server's events \
            arrive. When the connection drops it says so and reconnects with backoff; what was \
            missed is caught up. Stop it with Ctrl-C, or use --until-idle in scripts.
            """)

    @OptionGroup var target: Cache.Target
    @Flag(help: "Exit once no transfer is waiting or running and no import is in progress.")
    var untilIdle = false

    func run() async throws {
        guard let client = try await target.client() else {
            throw ValidationError("no Tuner server is running for this data folder; start one with `tuner serve`")
        }
        let screen = WatchScreen(tasks: [])
        let stream = ServerEventStream(link: client.link, topics: ["transfers", "imports"])
        // The redraw ticker is a child task: it ends with the stream's loop.
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    screen.tick()
                }
            }
            var loaded = false
            var wasDisconnected = false
            for await update in stream.updates() {
                switch update {
                case .connected:
                    // The list once the events flow, so no change falls between the two; after a
                    // reconnect what was missed follows as events (or a resync).
                    if !loaded {
                        screen.reload(try await Self.transfers(client))
                        loaded = true
                    }
                    if wasDisconnected { screen.note("reconnected to \(client.baseURL)") }
                    wasDisconnected = false
                case .event(let event):
                    screen.handle(event)
                case .resync(let reason):
                    screen.note("catching up (\(reason == "restart" ? "the server restarted" : reason))")
                    if let tasks = try? await Self.transfers(client) { screen.reload(tasks) }
                case .disconnected(let reason, let retryIn):
                    if !wasDisconnected {
                        screen.note(
                            "lost the server (\(reason)); reconnecting in \(String(format: "%.1f", retryIn)) s")
                    }
                    wasDisconnected = true
                }
                // Idle only means something once the server's list is in: a first connection that
                // fails (a busy server) says nothing about the transfers.
                if untilIdle, loaded, screen.isIdle { break }
            }
            group.cancelAll()
        }
        screen.close()
    }

    static func transfers(_ client: ServerClient) async throws -> [TransferTask] {
        let (status, body) = try await client.send(.transfers)
        guard status == 200 else { throw CLIError("server answered \(status): \(TransfersTarget.message(body))") }
        return try TransfersTarget.decodeList(body)
    }
}

/// What `tuner watch` shows: the transfers through a ``ProgressOutput`` (rebuilt when a new task
/// appears, since a renderer follows the tasks it was made with) and a line per import step.
final class WatchScreen: Sendable {
    private struct State {
        var output: ProgressOutput
        /// The unfinished transfers, by id.
        var unfinished: [Int64: TransferTask]
        /// Sources being imported, with when their last progress line was printed.
        var imports: [Int64: ContinuousClock.Instant] = [:]

        mutating func rebuild() {
            _ = output.finish()
            output = ProgressOutput(tasks: unfinished.values.sorted { $0.id < $1.id })
        }
    }
    private let state: Mutex<State>

    init(tasks: [TransferTask]) {
        let open = tasks.filter { !$0.state.isFinished }
        state = Mutex(
            State(
                output: ProgressOutput(tasks: open),
                unfinished: Dictionary(open.map { ($0.id, $0) }, uniquingKeysWith: { $1 })))
    }

    /// No transfer waiting or running (paused ones wait for the user), no import running.
    var isIdle: Bool {
        state.withLock { $0.unfinished.values.allSatisfy { $0.state == .paused } && $0.imports.isEmpty }
    }

    func handle(_ event: ServerEventMessage) {
        state.withLock { state in
            switch event.type {
            case "transfer.changed":
                guard let task = try? TransfersTarget.decoder().decode(TransferTask.self, from: event.data) else {
                    return
                }
                if state.unfinished[task.id] == nil, !task.state.isFinished {
                    state.unfinished[task.id] = task
                    state.rebuild()
                }
                state.output.handle(.changed(task))
                if task.state.isFinished { state.unfinished[task.id] = nil } else { state.unfinished[task.id] = task }
            case "transfer.progress":
                guard let progress = try? TransfersTarget.decoder().decode(TransferProgress.self, from: event.data)
                else { return }
                state.output.handle(.progress(progress))
            case "transfer.deleted":
                struct Deleted: Decodable { var id: Int64 }
                guard let id = try? JSONDecoder().decode(Deleted.self, from: event.data).id else { return }
                state.output.handle(.deleted(id: id))
                state.unfinished[id] = nil
            case "import.progress":
                guard let progress = try? JSONDecoder().decode(CatalogImportProgress.self, from: event.data) else {
                    return
                }
                let now = ContinuousClock.now
                if let last = state.imports[progress.sourceID], now - last < .seconds(1) { return }
                state.imports[progress.sourceID] = now
                var line = "import of source \(progress.sourceID): \(progress.phase) "
                line += TransferProgressRenderer.size(progress.bytes)
                if let total = progress.totalBytes { line += " of " + TransferProgressRenderer.size(total) }
                if progress.entries > 0 { line += ", \(progress.entries) entries" }
                print(line)
            case "import.finished", "import.failed":
                struct Result: Decodable {
                    var sourceID: Int64
                    var error: String?
                }
                guard let result = try? JSONDecoder().decode(Result.self, from: event.data) else { return }
                state.imports[result.sourceID] = nil
                if let error = result.error {
                    print("import of source \(result.sourceID) failed: \(error)")
                } else {
                    print("import of source \(result.sourceID) finished")
                }
            default:
                return
            }
            fflush(nil)
        }
    }

    /// After a resync: the server's list replaces what was known.
    func reload(_ tasks: [TransferTask]) {
        state.withLock { state in
            for task in tasks { state.output.handle(.changed(task)) }
            let open = tasks.filter { !$0.state.isFinished }
            state.unfinished = Dictionary(open.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            // An import that ended while the connection was down sent its result then.
            state.imports = [:]
            state.rebuild()
        }
    }

    func note(_ line: String) {
        state.withLock { _ in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    func tick() {
        state.withLock { $0.output.tick() }
    }

    func close() {
        state.withLock { _ = $0.output.finish() }
    }
}
