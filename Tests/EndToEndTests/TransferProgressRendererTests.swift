import Foundation
import Testing

import Transfers

@testable import tuner

/// The text `--wait` prints: redrawn bars on a terminal, plain lines otherwise, exactly.
@Suite("Transfer progress rendering")
struct TransferProgressRendererTests {
    static let mib: Int64 = 1 << 20
    static let erase = "\r\u{1B}[J"

    static func task(
        _ id: Int64, _ name: String, _ state: TransferState = .waiting, retries: Int = 0, reason: String? = nil,
        committed: Int64 = 0
    ) -> TransferTask {
        TransferTask(
            id: id, kind: .downloadFile, sourceURL: "http://example.test/\(name)", destinationName: name, state: state,
            committedBytes: committed, errorReason: reason, retryCount: retries)
    }

    static func progress(_ id: Int64, _ bytes: Int64, of total: Int64?, speed: Double, eta: Double?) -> TransferEvent {
        .progress(TransferProgress(id: id, bytes: bytes, total: total, bytesPerSecond: speed, etaSeconds: eta))
    }

    @Test("One task on a terminal: one bar redrawn in place with a carriage return, then its final line and no bar")
    func singleBarRedrawnInPlace() {
        var renderer = TransferProgressRenderer(tasks: [Self.task(7, "movie.mp4")], terminalWidth: 100)
        #expect(renderer.tick(now: 0) == "movie.mp4  waiting")
        #expect(renderer.handle(.changed(Self.task(7, "movie.mp4", .active))) == "")
        #expect(
            renderer.handle(Self.progress(7, 42 * Self.mib, of: 100 * Self.mib, speed: Double(5 * Self.mib), eta: 11.6))
                == "")
        #expect(
            renderer.tick(now: 0.25)
                == Self.erase + "movie.mp4   42% [########------------] 42.0 MiB/100.0 MiB  5.0 MiB/s  ETA 12s")
        #expect(renderer.tick(now: 0.5) == "", "nothing changed, nothing redrawn")
        _ = renderer.handle(Self.progress(7, 99 * Self.mib, of: 100 * Self.mib, speed: Double(5 * Self.mib), eta: 0.2))
        #expect(
            renderer.tick(now: 0.75)
                == Self.erase + "movie.mp4   99% [###################-] 99.0 MiB/100.0 MiB  5.0 MiB/s  ETA 1s")
        let done = Self.task(7, "movie.mp4", .complete, committed: 100 * Self.mib)
        #expect(renderer.handle(.changed(done)) == Self.erase + "complete 7 movie.mp4 (104857600 bytes)\n")
        #expect(renderer.isDone)
        #expect(
            renderer.handle(Self.progress(7, 1, of: 2, speed: 1, eta: 1)) == "",
            "events after the final line are ignored")
        #expect(renderer.tick(now: 1) == "")
        #expect(renderer.finish() == "")
    }

    @Test("Without a terminal: plain lines only, progress every interval, each retry once, and final lines")
    func plainLines() {
        var renderer = TransferProgressRenderer(
            tasks: [Self.task(7, "movie.mp4"), Self.task(8, "gone.bin")], terminalWidth: nil)
        #expect(renderer.handle(.changed(Self.task(7, "movie.mp4", .active))) == "")
        #expect(
            renderer.handle(Self.progress(7, 42 * Self.mib, of: 100 * Self.mib, speed: Double(5 * Self.mib), eta: 11.6))
                == "")
        #expect(renderer.tick(now: 10) == "")
        #expect(renderer.tick(now: 11) == "")
        #expect(
            renderer.tick(now: 12.5) == """
                progress 7 movie.mp4: 42% 42.0 MiB of 100.0 MiB, 5.0 MiB/s, ETA 12s
                progress: 0/2 done, 1 active, 1 waiting, 5.0 MiB/s

                """)
        #expect(renderer.tick(now: 13) == "", "not before the interval again")

        let failing = Self.task(7, "movie.mp4", .waiting, retries: 1, reason: "HTTP 503 from example.test")
        #expect(renderer.handle(.changed(failing)) == "retrying 7 movie.mp4 (failure 1): HTTP 503 from example.test\n")
        #expect(renderer.handle(.changed(failing)) == "", "one line per failed attempt")
        #expect(renderer.tick(now: 20) == "", "no progress line while nothing is active")

        #expect(
            renderer.handle(.changed(Self.task(8, "gone.bin", .error, reason: "HTTP 404: the file is not there")))
                == "error 8 gone.bin: HTTP 404: the file is not there\n")
        #expect(
            renderer.handle(.changed(Self.task(7, "movie.mp4", .paused)))
                == "paused 7 movie.mp4: waiting for `tuner transfers resume 7`\n")
        #expect(
            renderer.handle(.changed(Self.task(7, "movie.mp4", .complete, committed: 5)))
                == "complete 7 movie.mp4 (5 bytes)\n")
        #expect(renderer.finish() == "")
        #expect(renderer.latestTasks.map(\.state) == [.complete, .error])
    }

    @Test("Several tasks on a terminal: a bar per shown active task and a summary, redrawn from the block's top")
    func severalTasksBlock() {
        let names = ["a.bin", "bb.bin", "ccc.bin", "d.bin"]
        var renderer = TransferProgressRenderer(
            tasks: names.enumerated().map { Self.task(Int64($0.offset + 1), $0.element) }, terminalWidth: 100,
            maximumBars: 2)
        for id in 1...3 {
            _ = renderer.handle(.changed(Self.task(Int64(id), names[id - 1], .active)))
            _ = renderer.handle(
                Self.progress(Int64(id), Int64(id) * Self.mib, of: 10 * Self.mib, speed: Double(Self.mib), eta: 9))
        }
        let first = renderer.tick(now: 0)
        #expect(
            first == """
                a.bin    10% [##------------------] 1.0 MiB/10.0 MiB  1.0 MiB/s  ETA 9s
                bb.bin   20% [####----------------] 2.0 MiB/10.0 MiB  1.0 MiB/s  ETA 9s
                0/4 done, 3 active (1 not shown), 1 waiting, 3.0 MiB/s
                """)
        _ = renderer.handle(Self.progress(2, 5 * Self.mib, of: 10 * Self.mib, speed: Double(Self.mib), eta: 5))
        let second = renderer.tick(now: 0.25)
        #expect(second.hasPrefix("\r\u{1B}[2A\u{1B}[J"), "back up to the first of three lines, then clear")
        #expect(second.contains("bb.bin   50% [##########----------] 5.0 MiB/10.0 MiB"))

        // A final line goes above the block, which is drawn again below it.
        let done = renderer.handle(.changed(Self.task(1, "a.bin", .complete, committed: 10 * Self.mib)))
        #expect(
            done == "\r\u{1B}[2A\u{1B}[J" + "complete 1 a.bin (10485760 bytes)\n" + """
                bb.bin    50% [##########----------] 5.0 MiB/10.0 MiB  1.0 MiB/s  ETA 5s
                ccc.bin   30% [######--------------] 3.0 MiB/10.0 MiB  1.0 MiB/s  ETA 9s
                1/4 done, 2 active, 1 waiting, 2.0 MiB/s
                """)
        #expect(
            renderer.handle(.deleted(id: 4)) == "\r\u{1B}[2A\u{1B}[J"
                + "deleted 4 d.bin: its record was removed while waiting\n" + """
                    bb.bin    50% [##########----------] 5.0 MiB/10.0 MiB  1.0 MiB/s  ETA 5s
                    ccc.bin   30% [######--------------] 3.0 MiB/10.0 MiB  1.0 MiB/s  ETA 9s
                    2/4 done, 1 failed, 2 active, 2.0 MiB/s
                    """)
        #expect(renderer.deletedIDs == [4])
        #expect(
            renderer.handle(.changed(Self.task(99, "other.bin", .complete))) == "",
            "tasks it does not follow are ignored")
        #expect(renderer.finish() == "\r\u{1B}[2A\u{1B}[J", "the block is cleared at the end")
        #expect(renderer.finish() == "")
    }

    @Test("A narrow terminal keeps every line inside its width: the bar goes first, then the name is shortened")
    func narrowTerminal() {
        let name = "a-very-long-file-name-of-a-series-episode.mkv"
        var renderer = TransferProgressRenderer(tasks: [Self.task(1, name, .active)], terminalWidth: 60)
        _ = renderer.handle(
            Self.progress(1, 300 * Self.mib, of: 1024 * Self.mib, speed: 2.5 * Double(Self.mib), eta: 185))
        let line = renderer.tick(now: 0)
        #expect(line == "a-very-long-…   29% 300.0 MiB/1.0 GiB  2.5 MiB/s  ETA 3m05s")
        #expect(line.count <= 59)

        var unknown = TransferProgressRenderer(tasks: [Self.task(2, "live.ts", .active)], terminalWidth: 80)
        _ = unknown.handle(Self.progress(2, 5 * Self.mib, of: nil, speed: Double(Self.mib), eta: nil))
        #expect(unknown.tick(now: 0) == "live.ts  5.0 MiB  1.0 MiB/s", "no percentage or bar without a total")
    }

    @Test("Sizes, speeds and times read like curl's and aria2c's")
    func formatting() {
        #expect(TransferProgressRenderer.size(0) == "0 B")
        #expect(TransferProgressRenderer.size(1023) == "1023 B")
        #expect(TransferProgressRenderer.size(1024) == "1.0 KiB")
        #expect(TransferProgressRenderer.size(1536 * 1024) == "1.5 MiB")
        #expect(TransferProgressRenderer.size(3 << 40) == "3.0 TiB")
        #expect(TransferProgressRenderer.rate(0) == "0 B/s")
        #expect(TransferProgressRenderer.rate(.nan) == "0 B/s")
        #expect(TransferProgressRenderer.duration(0) == "0s")
        #expect(TransferProgressRenderer.duration(59.2) == "1m00s")
        #expect(TransferProgressRenderer.duration(185) == "3m05s")
        #expect(TransferProgressRenderer.duration(3720) == "1h02m")
        #expect(TransferProgressRenderer.duration(.infinity) == "--")
    }
}
