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
    /// Writes the recording (each part, each gap, and its progress every ``storeInterval``).
    let save: @Sendable (Recording) async -> Void
    /// Tells the subscribers of its progress without writing it (after the other syncs).
    let publish: @Sendable (Recording) async -> Void

    /// How often a running recording's progress is written to the database: the bytes are on
    /// disk at every sync whatever this says (a restart reads the file), so twenty recordings
    /// cost two writes a second, not ten.
    static let storeInterval = Duration.seconds(10)

    /// Records until the stop time (or cancellation), then completes; returns the final state.
    func run() async -> Recording {
        var recording = recording
        var gapStart: Int64?
        var gapReason = ""
        while !Task.isCancelled, now() < recording.recordStop {
            if let reason = diskShortage() {
                recording.state = .failed
                recording.reason = reason
                return await Self.complete(recording, directory: directory, logger: logger)
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
            // A failover to another stream ends a part and starts the next where its bytes begin.
            var splitter = RecordingSplitter()
            var outcome = await record(viewer, into: &recording, splitter: &splitter, first: [])
            while case .split(let rest) = outcome, !Task.isCancelled {
                logger.info(
                    "A recording's stream changed (a failover): the next part begins",
                    metadata: ["recording": "\(recording.id)"])
                splitter.reset()
                outcome = await record(viewer, into: &recording, splitter: &splitter, first: rest)
            }
            viewer.close()
            if case .failed(let reason) = outcome {
                recording.state = .failed
                recording.reason = reason
                return await Self.complete(recording, directory: directory, logger: logger)
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
        return await Self.complete(recording, directory: directory, logger: logger)
    }

    enum Outcome {
        case ended
        case failed(String)
        /// The stream changed: these bytes (and what follows) are the next part's.
        case split([ByteBuffer])
    }

    /// Writes `first`, then what `viewer` reads, into a new part until the stop time, the
    /// session's end, or a change of stream (`.split`, the viewer left open for the next part).
    private func record(
        _ viewer: LiveViewer, into recording: inout Recording, splitter: inout RecordingSplitter,
        first: [ByteBuffer]
    ) async -> Outcome {
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
        var stored = ContinuousClock.now
        var pending = first
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Only the stop time leaves the session here: a split goes on with this viewer.
                while !Task.isCancelled, clock() < stopAt { try? await Task.sleep(for: .milliseconds(200)) }
                if clock() >= stopAt { viewer.close() }
            }
            await withTaskCancellationHandler {
                while true {
                    var buffers: [ByteBuffer]
                    if pending.isEmpty {
                        guard let read = await viewer.next() else { break }
                        buffers = read
                    } else {
                        buffers = pending
                        pending = []
                    }
                    // The bytes before a change of stream are this part's; the rest the next's.
                    for index in buffers.indices {
                        guard let at = splitter.split(in: buffers[index]) else { continue }
                        let whole = buffers[index]
                        let head = whole.getSlice(at: whole.readerIndex, length: at) ?? ByteBuffer()
                        let tail =
                            whole.getSlice(at: whole.readerIndex + at, length: whole.readableBytes - at) ?? ByteBuffer()
                        outcome = .split([tail] + buffers[(index + 1)...])
                        buffers = Array(buffers[..<index]) + [head]
                        break
                    }
                    do {
                        let synced = try await writer.write(buffers)
                        written &+= Int64(buffers.reduce(0) { $0 + $1.readableBytes })
                        if synced {
                            recording.files[recording.files.count - 1].bytes = written
                            recording.files[recording.files.count - 1].receivedBytes = written
                            recording.syncedAt = now()
                            if stored.duration(to: .now) >= Self.storeInterval {
                                stored = .now
                                await save(recording)
                            } else {
                                await publish(recording)
                            }
                            if let reason = diskShortage() {
                                outcome = .failed(reason)
                                break
                            }
                        }
                    } catch {
                        outcome = .failed("cannot write the recording: \(error)")
                        break
                    }
                    if case .split = outcome { break }
                }
            } onCancel: {
                viewer.close()
            }
            group.cancelAll()
        }
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
    static func complete(_ recording: Recording, directory: String, logger: Logger) async -> Recording {
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
