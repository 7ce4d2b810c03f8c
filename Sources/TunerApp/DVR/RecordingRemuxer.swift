import Foundation
import LiveTV
import Logging

/// Turns a recorded MPEG-TS part into MP4 without re-encoding (ffmpeg `-c copy`, the moov atom
/// first so players seek at once), off the cooperative pool.
enum RecordingRemuxer {
    /// The MP4's size, or nil when ffmpeg is missing or failed (the TS then stays as it is).
    static func remux(_ input: String, to output: String, logger: Logger) async -> Int64? {
        guard let ffmpeg = LiveFFmpegUpstream.path else { return nil }
        let partial = output + ".partial"
        let arguments = [
            "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-fflags", "+genpts+discardcorrupt", "-i", input,
            "-map", "0:v?", "-map", "0:a?", "-c", "copy", "-movflags", "+faststart", "-f", "mp4", partial,
        ]
        let status: Int32? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: ffmpeg)
                process.arguments = arguments
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                do {
                    try process.run()
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                } catch {
                    continuation.resume(returning: nil)
                }
            }
        }
        guard status == 0,
            let size = (try? FileManager.default.attributesOfItem(atPath: partial))?[.size] as? Int64, size > 0
        else {
            logger.warning(
                "ffmpeg could not remux a recording", metadata: ["status": "\(status.map(String.init) ?? "none")"])
            try? FileManager.default.removeItem(atPath: partial)
            return nil
        }
        do {
            if FileManager.default.fileExists(atPath: output) { try FileManager.default.removeItem(atPath: output) }
            try FileManager.default.moveItem(atPath: partial, toPath: output)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            return nil
        }
        return size
    }
}
