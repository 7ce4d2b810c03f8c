import Foundation
import Transfers

/// Turns the events of a few transfers into text for a terminal or a log.
///
/// On a terminal (``init(tasks:terminalWidth:maximumBars:plainInterval:)`` with a width) it keeps
/// a block of redrawn lines at the bottom: one progress bar per active task (percentage,
/// bytes/total, speed, ETA, like aria2c or curl), at most `maximumBars` of them, and a summary line
/// when it follows more than one task. Anything that stays (a task's final line, a retry, a pause)
/// is printed above that block. Without a terminal it prints plain lines only: the same final,
/// retry and pause lines, and a progress line every `plainInterval` seconds.
///
/// The renderer is pure: every method returns the text to write (often empty) and never writes,
/// so the CLI's two ways of following transfers (the in-process manager's events and a running
/// server's answers) print the same, and tests check the exact strings. It ignores events of
/// tasks it was not given, and a task's events after its final line.
struct TransferProgressRenderer: Sendable {
    /// Bar characters between the brackets.
    static let barWidth = 20
    /// Erases the rest of the screen from the cursor (ECMA-48 ED).
    static let clearBelow = "\u{1B}[J"

    private let order: [Int64]
    private var tasks: [Int64: TransferTask]
    private var progress: [Int64: TransferProgress] = [:]
    /// Tasks whose final line was printed.
    private var finished: Set<Int64> = []
    /// Tasks that ended deleted (their record gone), for ``outcome``.
    private var deleted: Set<Int64> = []
    /// The retry count last announced per task, so each failed attempt is told once.
    private var announcedRetries: [Int64: Int] = [:]
    private var announcedPause: Set<Int64> = []
    private let terminalWidth: Int?
    private let maximumBars: Int
    private let plainInterval: TimeInterval
    /// Lines of the redrawn block now on screen; the cursor is at the end of the last one.
    private var drawnLines = 0
    private var needsRedraw: Bool
    private var lastPlainLine: TimeInterval?

    /// - Parameters:
    ///   - tasks: the tasks to follow, in the order their bars appear.
    ///   - terminalWidth: the terminal's columns; nil for plain lines (output to a file or pipe).
    ///   - maximumBars: bars drawn at once; more active tasks are counted in the summary line.
    ///   - plainInterval: seconds between two progress lines in plain mode.
    init(tasks: [TransferTask], terminalWidth: Int?, maximumBars: Int = 4, plainInterval: TimeInterval = 2) {
        order = tasks.map(\.id)
        self.tasks = Dictionary(tasks.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        self.terminalWidth = terminalWidth.map { max(20, $0) }
        self.maximumBars = max(1, maximumBars)
        self.plainInterval = plainInterval
        needsRedraw = terminalWidth != nil
        for task in tasks { announcedRetries[task.id] = task.retryCount }
    }

    /// True once every task has had its final line.
    var isDone: Bool { finished.count == order.count }

    /// The newest state of every task, in the order given; deleted tasks keep their last state.
    var latestTasks: [TransferTask] { order.compactMap { tasks[$0] } }

    /// Ids of the tasks whose record was deleted while they were followed.
    var deletedIDs: Set<Int64> { deleted }

    /// Takes one event; returns text to write now (final, retry and pause lines, with the block
    /// redrawn below them on a terminal), or "" when the change waits for the next ``tick(now:)``.
    mutating func handle(_ event: TransferEvent) -> String {
        switch event {
        case .progress(let value):
            guard tasks[value.id] != nil, !finished.contains(value.id) else { return "" }
            progress[value.id] = value
            needsRedraw = true
            return ""
        case .deleted(let id):
            guard let task = tasks[id], !finished.contains(id) else { return "" }
            finished.insert(id)
            deleted.insert(id)
            progress[id] = nil
            return emit(["deleted \(id) \(task.destinationName): its record was removed while waiting"])
        case .changed(let task):
            guard tasks[task.id] != nil, !finished.contains(task.id) else { return "" }
            tasks[task.id] = task
            var lines: [String] = []
            if task.state.isFinished {
                finished.insert(task.id)
                progress[task.id] = nil
                lines.append(Self.finalLine(task))
            } else {
                let announced = announcedRetries[task.id] ?? 0
                if task.retryCount < announced { announcedRetries[task.id] = task.retryCount }
                if task.retryCount > announced {
                    announcedRetries[task.id] = task.retryCount
                    lines.append(
                        """
                        retrying \(task.id) \(task.destinationName) (failure \(task.retryCount)): \
                        \(task.errorReason ?? "no reason given")
                        """
                    )
                }
                if task.state == .paused {
                    if announcedPause.insert(task.id).inserted {
                        lines.append(
                            "paused \(task.id) \(task.destinationName): waiting for `tuner transfers resume \(task.id)`"
                        )
                    }
                } else {
                    announcedPause.remove(task.id)
                }
                if task.state != .active { progress[task.id] = nil }
            }
            if lines.isEmpty {
                needsRedraw = true
                return ""
            }
            return emit(lines)
        }
    }

    /// Called a few times a second: on a terminal, redraws the block if something changed; in
    /// plain mode, prints the progress lines once `plainInterval` has passed since the last ones.
    /// `now` is any monotonic clock in seconds.
    mutating func tick(now: TimeInterval) -> String {
        if terminalWidth != nil {
            guard needsRedraw else { return "" }
            return redraw(permanent: [])
        }
        guard let last = lastPlainLine else {
            lastPlainLine = now
            return ""
        }
        guard now - last >= plainInterval else { return "" }
        lastPlainLine = now
        let lines = plainProgressLines()
        return lines.isEmpty ? "" : lines.map { $0 + "\n" }.joined()
    }

    /// Text that leaves the screen clean at the end: the block erased, final lines kept.
    mutating func finish() -> String {
        guard terminalWidth != nil, drawnLines > 0 else { return "" }
        let text = erase()
        drawnLines = 0
        return text
    }

    // MARK: Lines

    /// The line a task leaves behind when it ends.
    static func finalLine(_ task: TransferTask) -> String {
        switch task.state {
        case .complete: "complete \(task.id) \(task.destinationName) (\(task.committedBytes) bytes)"
        case .removed: "removed \(task.id) \(task.destinationName) (cancelled)"
        default: "\(task.state.rawValue) \(task.id) \(task.destinationName): \(task.errorReason ?? "no reason given")"
        }
    }

    private mutating func emit(_ lines: [String]) -> String {
        guard terminalWidth != nil else { return lines.map { $0 + "\n" }.joined() }
        return redraw(permanent: lines)
    }

    /// Erases the block, prints `permanent` lines, and draws the block again below them.
    private mutating func redraw(permanent: [String]) -> String {
        var text = erase()
        for line in permanent { text += line + "\n" }
        let block = blockLines()
        text += block.joined(separator: "\n")
        drawnLines = block.count
        needsRedraw = false
        return text
    }

    /// Back to the block's first column and everything below cleared.
    private func erase() -> String {
        guard drawnLines > 0 else { return "" }
        return "\r" + (drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)A" : "") + Self.clearBelow
    }

    private var activeIDs: [Int64] {
        order.filter { !finished.contains($0) && tasks[$0]?.state == .active }
    }

    /// The redrawn block: bars of the first active tasks, then a summary when following several.
    private func blockLines() -> [String] {
        guard let width = terminalWidth else { return [] }
        let shown = activeIDs.prefix(maximumBars).compactMap { tasks[$0] }
        var lines: [String] = []
        if order.count == 1, let only = tasks[order[0]], !finished.contains(only.id), only.state != .active {
            lines.append(Self.fit("\(only.destinationName)  \(only.state.rawValue)", width: width))
        }
        let nameWidth = min(shown.map { $0.destinationName.count }.max() ?? 0, 40)
        for task in shown {
            lines.append(barLine(task, nameWidth: nameWidth, width: width))
        }
        if order.count > 1, !isDone {
            lines.append(Self.fit(summary(shownBars: shown.count), width: width))
        }
        return lines
    }

    /// `name   42% [########------------] 44.0 MiB/104.9 MiB  5.2 MiB/s  ETA 12s`, fitted to
    /// `width - 1` columns (a full-width line would wrap on some terminals and break the redraw).
    private func barLine(_ task: TransferTask, nameWidth: Int, width: Int) -> String {
        let value = progress[task.id]
        let bytes = value?.bytes ?? task.committedBytes
        let total = value?.total ?? task.totalBytes
        let speed = value.map { Self.rate($0.bytesPerSecond) } ?? "--"
        if value == nil, bytes == 0 {
            return Self.fit(Self.truncated(task.destinationName, to: max(4, width - 12)) + "  starting", width: width)
        }
        var parts: [String] = []
        var bar: String?
        if let total, total > 0 {
            let percent = String(Self.share(of: bytes, in: total, scale: 100))
            let filled = Self.share(of: bytes, in: total, scale: Self.barWidth)
            parts.append(String(repeating: " ", count: 3 - percent.count) + percent + "%")
            bar =
                "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: Self.barWidth - filled)
                + "]"
            parts.append(
                "\(Self.size(bytes))/\(Self.size(total))  \(speed)  ETA \(value?.etaSeconds.map(Self.duration) ?? "--")"
            )
        } else {
            parts.append("\(Self.size(bytes))  \(speed)")
        }
        var stats = parts.joined(separator: " ")
        if let bar {
            let withBar = parts[0] + " " + bar + " " + parts[1]
            // A narrow terminal keeps the numbers and drops the bar.
            if width - 1 - 2 - withBar.count >= 10 { stats = withBar }
        }
        let nameRoom = max(4, min(nameWidth, width - 1 - 2 - stats.count))
        let name = Self.truncated(task.destinationName, to: nameRoom)
        let padded = name + String(repeating: " ", count: max(0, nameRoom - name.count))
        return Self.fit(padded + "  " + stats, width: width)
    }

    private func summary(shownBars: Int) -> String {
        let states = order.compactMap { id in finished.contains(id) && !deleted.contains(id) ? tasks[id]?.state : nil }
        let failed = states.filter { $0 != .complete }.count + deleted.count
        let active = activeIDs.count
        let waiting = order.filter { !finished.contains($0) && tasks[$0]?.state == .waiting }.count
        let paused = order.filter { !finished.contains($0) && tasks[$0]?.state == .paused }.count
        var parts = ["\(finished.count)/\(order.count) done"]
        if failed > 0 { parts.append("\(failed) failed") }
        parts.append(active > shownBars ? "\(active) active (\(active - shownBars) not shown)" : "\(active) active")
        if waiting > 0 { parts.append("\(waiting) waiting") }
        if paused > 0 { parts.append("\(paused) paused") }
        let speed = activeIDs.reduce(0.0) { $0 + (progress[$1]?.bytesPerSecond ?? 0) }
        parts.append(Self.rate(speed))
        return parts.joined(separator: ", ")
    }

    private func plainProgressLines() -> [String] {
        let active = activeIDs
        guard !active.isEmpty else { return [] }
        var lines: [String] = []
        for id in active.prefix(maximumBars) {
            guard let task = tasks[id] else { continue }
            let value = progress[id]
            let bytes = value?.bytes ?? task.committedBytes
            var line = "progress \(id) \(task.destinationName): "
            if let total = value?.total ?? task.totalBytes, total > 0 {
                let percent = Self.share(of: bytes, in: total, scale: 100)
                line += "\(percent)% \(Self.size(bytes)) of \(Self.size(total))"
            } else {
                line += Self.size(bytes)
            }
            if let value {
                line += ", \(Self.rate(value.bytesPerSecond))"
                if let eta = value.etaSeconds { line += ", ETA \(Self.duration(eta))" }
            }
            lines.append(line)
        }
        if order.count > 1 { lines.append("progress: " + summary(shownBars: min(active.count, maximumBars))) }
        return lines
    }

    // MARK: Formatting

    /// `bytes` of `total` in whole `scale`ths, rounded down and clamped (integer arithmetic, so
    /// 99 of 100 is never 98% through a binary fraction).
    static func share(of bytes: Int64, in total: Int64, scale: Int) -> Int {
        guard total > 0 else { return 0 }
        let clamped = min(max(bytes, 0), total)
        let (product, overflow) = clamped.multipliedReportingOverflow(by: Int64(scale))
        if overflow { return Int(Double(clamped) / Double(total) * Double(scale)) }
        return Int(product / total)
    }

    /// `512 B`, `44.0 KiB`, `1.5 MiB`, `2.0 GiB`: powers of 1024, one decimal.
    static func size(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        for unit in ["KiB", "MiB", "GiB", "TiB"] {
            if value < 1024 || unit == "TiB" { return String(format: "%.1f %@", value, unit) }
            value /= 1024
        }
        return "\(bytes) B"
    }

    static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
        return size(Int64(bytesPerSecond)) + "/s"
    }

    /// `12s`, `3m05s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--" }
        let whole = Int(min(seconds.rounded(.up), 359_999))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" + String(format: "%02ds", whole % 60) }
        return "\(whole / 3600)h" + String(format: "%02dm", whole % 3600 / 60)
    }

    static func truncated(_ text: String, to count: Int) -> String {
        guard text.count > count else { return text }
        return String(text.prefix(max(1, count - 1))) + "…"
    }

    static func fit(_ line: String, width: Int) -> String {
        truncated(line, to: width - 1)
    }
}
