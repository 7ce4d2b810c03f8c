import Foundation
import Testing

/// One way to own tasks and share state (issue 27, point 5): long-running work is a child task of
/// an owner's `run()` or kept by a type that cancels and awaits it; state is shared through
/// `Mutex` or actors. Read from the text of Sources, like ``ModuleGraphTests``, so a new
/// unstructured task or a new kind of lock fails here with the file that added it.
@Suite struct TaskOwnershipTests {
    /// Files that may create unstructured tasks (`Task {`, `Task.detached`), how many, and why.
    /// The counts are exact, so the list stays true: a new task fails here, and a task removed
    /// asks for its line to go (a count may only go down); a file not listed may create none.
    static let unstructuredTasks: [String: (count: Int, reason: String)] = [
        "Transfers/Manager/TransferManager.swift": (
            2,
            """
            start() runs run() in a task the manager keeps and shutdown() cancels and awaits; the single \
            writer (TransferFlusher) is never cancelled, since a cancelled database write loses synced \
            offsets, and flush() awaits it
            """
        ),
        "Transfers/Manager/TransferContext.swift": (
            1, "releaseSlot() is synchronous for executors: a hop onto the manager that ends at once"
        ),
        "Transfers/File/FileDownloadExecutor.swift": (
            1, "the fsync that overlaps the next bytes; awaited on every path before the run returns"
        ),
        "MediaCache/MediaCache+Fetch.swift": (
            3,
            """
            a fetch shared by readers outlives the reader that started it: ResourceEntry keeps it \
            (setTask) and the cache cancels and awaits it at shutdown (cancelAllFetches); the sync beside \
            a fetch is awaited on every path
            """
        ),
        "ServerLink/ServerEventStream.swift": (
            1, "feeds the stream updates() returns; cancelled when its reader stops (onTermination)"
        ),
        "TunerServer/TunerServer.swift": (
            1, "start() for embedders without a service group: stop() shuts the group down and awaits it"
        ),
        "Streaming/BackgroundWork.swift": (
            1, "the tracker itself: each task kept until it ends; shutdown() cancels and awaits them all"
        ),
        "TunerStorage/Postgres/ConnectionLossWatch.swift": (
            1, "work on a PostgreSQL connection, raced against its close: postgres-nio may never answer a dead one"
        ),
        "TunerStorage/Postgres/TunerPostgres.swift": (
            1, "the connection pool's run(): lives as long as the database object; close() cancels and awaits it"
        ),
        "TunerApp/DVR/DVR.swift": (
            1,
            """
            each running recording: kept in `jobs` by recording id, so a delete stops that one; run() \
            cancels and awaits them all when it ends
            """
        ),
        "TunerTesting/ExternalCommand.swift": (1, "test support: the child's watchdog, cancelled when it exits"),
        "TunerTesting/HLSFixtures.swift": (1, "test support: one fixture generation shared by its awaiters"),
    ]

    /// Locks other than `Mutex`: NIO's only inside the server's NIO handlers (Transport) and the
    /// test origins' NIO handlers, Foundation's nowhere, and a condition only where threads of their
    /// own wait on it (a `Mutex` cannot make a thread wait). Each list may only shrink.
    static let otherLocks: [String: Set<String>] = [
        "NIOLock": [
            "TunerServer/Transport/StreamFastPath.swift", "TunerServer/Transport/TunerHTTPServer.swift",
            "TunerTesting/LiveTSOrigin.swift",
        ],
        "NSLock": [],
        "NSCondition": ["Catalog/Import/ImportPipeline.swift", "Outputs/PasswordHashPool.swift"],
    ]

    /// Files whose dispatch queues run blocking file I/O off the cooperative pool: queues as
    /// threads, never as locks (no `.sync`, no barrier).
    static let blockingIOQueues: Set = [
        "Transfers/File/DirectorySync.swift", "Transfers/File/PartialFile.swift", "Transfers/File/DownloadWriter.swift",
        "Transfers/Upload/UploadBlockingIO.swift", "TusServer/TusStoreIO.swift", "MediaCache/MediaCache+Fetch.swift",
        "TunerApp/DVR/RecordingWriter.swift", "TunerApp/DVR/RecordingRemuxer.swift",
        "LiveTV/Timeshift/TimeshiftWindow.swift",
    ]

    /// Every Swift file of Sources (path relative to it) with its lines, comments left out.
    static func sourceLines() throws -> [(file: String, lines: [String])] {
        let root = ModuleGraphTests.sources.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [(String, [String])] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter {
                !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            }
            files.append((path, code))
        }
        return files
    }

    static func count(_ pattern: String, in lines: [String]) throws -> Int {
        let regex = try NSRegularExpression(pattern: pattern)
        return lines.reduce(0) { total, line in
            total + regex.numberOfMatches(in: line, range: NSRange(line.startIndex..., in: line))
        }
    }

    /// `Task {`, `Task(priority: …) {`, `Task.detached`, but not `group.addTask {`.
    static let unstructured = #"(?<![A-Za-z0-9_.])Task(\s*\([^)]*\))?\s*\{|\bTask\.detached\b"#

    @Test("Unstructured tasks only where the list says why, never more of them")
    func unstructuredTasksAreListedWithAReason() throws {
        for (file, lines) in try Self.sourceLines() {
            let found = try Self.count(Self.unstructured, in: lines)
            let allowed = Self.unstructuredTasks[file]?.count ?? 0
            guard found > 0 || allowed > 0 else { continue }
            #expect(
                found == allowed,
                """
                \(file) creates \(found) unstructured task(s), the list says \(allowed): make a new one a child \
                task of its owner's run(), or keep it in a type that cancels and awaits it and list it here \
                with why; for one removed, lower its count
                """)
        }
    }

    @Test("Shared state is guarded by Mutex or actors: no other lock outside its list")
    func noOtherLocks() throws {
        let patterns = [
            "NIOLock": #"\bNIOLock(edValueBox)?\b"#,
            "NSLock": #"\bNS(Recursive)?Lock\b|\bos_unfair_lock\b|\bpthread_mutex_"#,
            "NSCondition": #"\bNSCondition(Lock)?\b"#,
        ]
        for (file, lines) in try Self.sourceLines() {
            for (kind, pattern) in patterns where try Self.count(pattern, in: lines) > 0 {
                #expect(Self.otherLocks[kind]?.contains(file) == true, "\(file) uses \(kind); use Mutex or an actor")
            }
            let queues = try Self.count(#"\bDispatchQueue\b"#, in: lines)
            if queues > 0 {
                #expect(Self.blockingIOQueues.contains(file), "\(file) uses a DispatchQueue; use Mutex or an actor")
                let asLock = try Self.count(#"(?i)queue\.sync\s*(\(|\{)|\.barrier\b"#, in: lines)
                #expect(asLock == 0, "\(file) uses a dispatch queue as a lock")
            }
        }
    }
}
