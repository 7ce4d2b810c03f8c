import ArgumentParser
import Foundation
import Synchronization
import Transfers
import TunerAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--wait`: follows transfers to their end and shows their progress, the same way whether they
/// run in this process or on a running server: both feed one ``TransferProgressRenderer``.
enum TransferWatch {
    /// Follows tasks run by `manager` in this process, through its events.
    static func follow(_ tasks: [TransferTask], manager: TransferManager) async -> [TransferTask] {
        let output = ProgressOutput(tasks: tasks)
        let events = manager.events()
        // The event reader and the redraw ticker are child tasks: both end with the wait.
        let finished = await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in events { output.handle(event) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 250_000_000)
                    output.tick()
                }
            }
            await manager.start()
            let finished = await manager.waitUntilFinished(ids: tasks.map(\.id))
            group.cancelAll()
            return finished
        }
        // The watcher reads its own subscription and may not have seen the last changes yet;
        // the renderer prints each task's final line once, whichever copy comes first.
        for task in finished { output.handle(.changed(task)) }
        let gone = Set(tasks.map(\.id)).subtracting(finished.map(\.id))
        for id in gone { output.handle(.deleted(id: id)) }
        return output.finish()
    }

    /// Follows tasks on a running server by asking for them a few times a second: one task at a
    /// time while they are few, the whole list when there are many.
    static func follow(_ tasks: [TransferTask], client: ServerClient) async throws -> [TransferTask] {
        let output = ProgressOutput(tasks: tasks)
        let ids = tasks.map(\.id)
        var pending = Set(ids)
        var failures = 0
        while !pending.isEmpty {
            do {
                for (id, answer) in try await poll(client: client, ids: ids.filter(pending.contains)) {
                    if let (task, progress) = answer {
                        output.handle(.changed(task))
                        if let progress { output.handle(.progress(progress)) }
                        if task.state.isFinished { pending.remove(id) }
                    } else {
                        output.handle(.deleted(id: id))
                        pending.remove(id)
                    }
                }
                failures = 0
            } catch let error as CLIError {
                _ = output.finish()
                throw error
            } catch {
                // A restarting server or a hiccup: a few misses are fine, a gone server is not.
                failures += 1
                if failures >= 10 {
                    _ = output.finish()
                    throw CLIError(
                        """
                        lost the server at \(client.baseURL) while waiting (\(error)); the transfers stay queued \
                        there: see `tuner transfers list`
                        """
                    )
                }
            }
            output.tick()
            if pending.isEmpty { break }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        return output.finish()
    }

    /// The current state (and progress) of each of `ids`, nil for a task the server no longer has.
    private static func poll(client: ServerClient, ids: [Int64]) async throws -> [(
        Int64, (TransferTask, TransferProgress?)?
    )] {
        struct Progress: Decodable { var progress: TransferProgress? }
        if ids.count <= 8 {
            var answers: [(Int64, (TransferTask, TransferProgress?)?)] = []
            for id in ids {
                let (status, body) = try await client.send(.transfer(id: id))
                if status == 404 {
                    answers.append((id, nil))
                    continue
                }
                guard status == 200 else {
                    throw CLIError("server answered \(status): \(TransfersTarget.message(body))")
                }
                let task = try TransfersTarget.decoder().decode(TransferTask.self, from: body)
                let progress = try? TransfersTarget.decoder().decode(Progress.self, from: body).progress
                answers.append((id, (task, progress ?? nil)))
            }
            return answers
        }
        struct Item: Decodable { var progress: TransferProgress? }
        struct List: Decodable {
            var transfers: [TransferTask]
            var progress: [Item]
            enum Keys: String, CodingKey { case transfers }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                transfers = try container.decode([TransferTask].self, forKey: .transfers)
                progress = try container.decode([Item].self, forKey: .transfers)
            }
        }
        let (status, body) = try await client.send(.transfers)
        guard status == 200 else { throw CLIError("server answered \(status): \(TransfersTarget.message(body))") }
        let list = try TransfersTarget.decoder().decode(List.self, from: body)
        var byID: [Int64: (TransferTask, TransferProgress?)] = [:]
        for (task, item) in zip(list.transfers, list.progress) { byID[task.id] = (task, item.progress) }
        return ids.map { ($0, byID[$0]) }
    }

    /// Prints how many ended well and fails the command when one did not. Each task's own final
    /// line was printed while following.
    static func report(_ tasks: [TransferTask]) throws {
        let failed = tasks.filter { $0.state != .complete }
        if tasks.count > 1 || !failed.isEmpty {
            print("\(tasks.count - failed.count) of \(tasks.count) transfers complete")
        }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}

/// Writes a ``TransferProgressRenderer``'s text to standard output: bars when it is a terminal,
/// plain lines otherwise. Events and ticks come from different tasks, hence the mutex.
final class ProgressOutput: Sendable {
    private let renderer: Mutex<TransferProgressRenderer>
    private let start = ContinuousClock.now

    init(tasks: [TransferTask]) {
        renderer = Mutex(TransferProgressRenderer(tasks: tasks, terminalWidth: Self.terminalWidth()))
    }

    func handle(_ event: TransferEvent) {
        renderer.withLock { write($0.handle(event)) }
    }

    func tick() {
        let elapsed = ContinuousClock.now - start
        let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        renderer.withLock { write($0.tick(now: now)) }
    }

    /// Clears the bars and returns the newest state of every task; deleted ones come back as
    /// `removed` so the caller counts them as failed.
    func finish() -> [TransferTask] {
        let (deleted, latest) = renderer.withLock { renderer in
            write(renderer.finish())
            return (renderer.deletedIDs, renderer.latestTasks)
        }
        return latest.map { task in
            var task = task
            if deleted.contains(task.id) {
                task.state = .removed
                task.errorReason = task.errorReason ?? "deleted while waiting"
            }
            return task
        }
    }

    /// Through `print`, like every other line of the command, so lines never overtake each other.
    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        print(text, terminator: "")
        fflush(nil)
    }

    /// The terminal's columns when standard output is one (80 when it does not say), else nil.
    static func terminalWidth() -> Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        #if canImport(Darwin)
            let status = ioctl(STDOUT_FILENO, TIOCGWINSZ, &size)
        #else
            let status = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size)
        #endif
        if status == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
            return columns
        }
        return 80
    }
}
