import Foundation
import LiveTV
import Logging
import NIOCore
import TunerAPI

/// One recording while it runs: a viewer of its channel's live session until its stop time,
/// each stretch of bytes a part file (a lost upstream or a restart starts the next one, the time
/// between a gap), then every part remuxed to MP4 (kept as TS when that fails).
struct RecordingJob: Sendable {
    var recording: Recording
    let live: LiveSessions
    let directory: String
    let minimumFreeBytes: Int64
    let logger: Logger
    let now: @Sendable () -> Int64
    /// Writes the recording's progress (after each sync, each part, each gap).
    let save: @Sendable (Recording) async -> Void

    /// Records until the stop time (or cancellation), then completes; returns the final state.
    func run() async -> Recording {
        var recording = recording
        var gapStart: Int64?
        var gapReason = ""
        while !Task.isCancelled, now() < recording.recordStop {
            if let reason = diskShortage() {
                recording.state = .failed
                recording.reason = reason
                return await complete(recording)
            }
            var request = LiveSessions.Request(
                channelID: recording.channelID, address: "recording \(recording.id)",
                priority: LiveSessions.Priority.owner)
            request.user = nil
            let viewer: LiveViewer
            do {
                viewer = try await live.watch(request)
            } catch {
                if gapStart == nil { gapStart = now() }
                gapReason = "no stream: \(error.description)"
                try? await Task.sleep(for: .seconds(2))
                continue
            }
            if let from = gapStart {
                recording.gaps.append(RecordingGap(from: from, to: now(), reason: gapReason))
                gapStart = nil
            }
            let outcome = await record(viewer, into: &recording)
            if case .failed(let reason) = outcome {
                recording.state = .failed
                recording.reason = reason
                return await complete(recording)
            }
            if now() < recording.recordStop, !Task.isCancelled {
                gapStart = now()
                gapReason = viewer.session.endReason.map { "the channel stopped: \($0)" } ?? "the channel stopped"
                logger.warning(
                    "A recording lost its channel; it goes on when the channel plays again",
                    metadata: ["recording": "\(recording.id)", "reason": "\(gapReason)"])
            }
        }
        if let from = gapStart { recording.gaps.append(RecordingGap(from: from, to: now(), reason: gapReason)) }
        // Cancelled by a shutdown before the end: the next start resumes it as a new part.
        if Task.isCancelled, now() < recording.recordStop { return recording }
        return await complete(recording)
    }

    enum Outcome {
        case ended
        case failed(String)
    }

    /// Writes what `viewer` reads into a new part until the stop time or the session's end.
    private func record(_ viewer: LiveViewer, into recording: inout Recording) async -> Outcome {
        let part = recording.files.count + 1
        var name = RecordingNames.relativePath(
            title: recording.title, season: recording.season, episode: recording.episode, start: recording.start,
            part: part, fileExtension: "ts")
        if FileManager.default.fileExists(atPath: directory + "/" + name) {
            // Another recording has this title and start (on another channel): keep both.
            name = String(name.dropLast(3)) + " [\(recording.id)].ts"
        }
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: directory + "/" + name)
        } catch {
            viewer.close()
            return .failed("cannot write the recording: \(error)")
        }
        recording.files.append(RecordingFile(name: name, bytes: 0, format: "ts", from: now(), to: nil))
        recording.syncedAt = now()
        await save(recording)
        logger.info(
            "Recording",
            metadata: ["recording": "\(recording.id)", "channel": "\(recording.channelID)", "file": "\(name)"])
        // Leaving the session at the stop time (or on cancellation) ends the reads below.
        let stopAt = recording.recordStop
        let clock = now
        var outcome = Outcome.ended
        var written: Int64 = 0
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled, clock() < stopAt { try? await Task.sleep(for: .milliseconds(200)) }
                viewer.close()
            }
            await withTaskCancellationHandler {
                while let buffers = await viewer.next() {
                    do {
                        let synced = try await writer.write(buffers)
                        written &+= Int64(buffers.reduce(0) { $0 + $1.readableBytes })
                        if synced {
                            recording.files[recording.files.count - 1].bytes = written
                            recording.files[recording.files.count - 1].receivedBytes = written
                            recording.syncedAt = now()
                            await save(recording)
                            if let reason = diskShortage() {
                                outcome = .failed(reason)
                                break
                            }
                        }
                    } catch {
                        outcome = .failed("cannot write the recording: \(error)")
                        break
                    }
                }
            } onCancel: {
                viewer.close()
            }
            group.cancelAll()
        }
        viewer.close()
        do {
            try await writer.finish()
        } catch {
            outcome = .failed("cannot finish the recording file: \(error)")
        }
        recording.files[recording.files.count - 1].bytes = written
        recording.files[recording.files.count - 1].receivedBytes = written
        recording.files[recording.files.count - 1].to = now()
        recording.syncedAt = now()
        await save(recording)
        return outcome
    }

    /// Remuxes every TS part to MP4 and says how it ended: done with what was recorded, failed
    /// when nothing was.
    func complete(_ recording: Recording) async -> Recording {
        var recording = recording
        for index in recording.files.indices where recording.files[index].format == "ts" {
            let file = recording.files[index]
            guard file.bytes > 0 else { continue }
            let mp4 = String(file.name.dropLast(3)) + ".mp4"
            if let size = await RecordingRemuxer.remux(
                directory + "/" + file.name, to: directory + "/" + mp4, logger: logger)
            {
                try? FileManager.default.removeItem(atPath: directory + "/" + file.name)
                recording.files[index].name = mp4
                recording.files[index].format = "mp4"
                recording.files[index].bytes = size
            } else {
                logger.warning(
                    "A recording stays MPEG-TS: the remux to MP4 failed", metadata: ["recording": "\(recording.id)"])
            }
        }
        // Parts that got no byte are no file.
        for file in recording.files where file.bytes == 0 {
            try? FileManager.default.removeItem(atPath: directory + "/" + file.name)
        }
        recording.files.removeAll { $0.bytes == 0 }
        if recording.state == .recording {
            if recording.files.isEmpty {
                recording.state = .failed
                recording.reason =
                    recording.gaps.last.map { "nothing was recorded: \($0.reason)" }
                    ?? "nothing was recorded"
            } else {
                recording.state = .done
            }
        }
        return recording
    }

    /// Why recording must stop for want of disk, or nil.
    private func diskShortage() -> String? {
        guard minimumFreeBytes > 0,
            let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory),
            let free = (attributes[.systemFreeSize] as? NSNumber)?.int64Value, free < minimumFreeBytes
        else { return nil }
        return "the disk has \(free / 1_048_576) MiB free, less than the reserve of \(minimumFreeBytes / 1_048_576) MiB"
    }
}
