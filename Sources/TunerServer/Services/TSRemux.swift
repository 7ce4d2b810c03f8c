import Foundation
import LiveTV
import Logging
import NIOCore
import NIOPosix
import TunerApp

/// An HLS channel as MPEG-TS, for players that expect a tuner's bytes (Plex, Jellyfin): ffmpeg
/// reads the channel through Tuner's own proxy URL (so the cache and the provider's headers
/// apply) and copies its streams into MPEG-TS (`-c copy`, no transcoding) on its standard
/// output, which is read with backpressure (NIO's pipe channel) and streamed to the player.
/// One ffmpeg per request for now; sharing one per channel between viewers is the live-session
/// registry's work.
enum TSRemux {
    /// ffmpeg on PATH, or nil (the live sessions' lookup).
    static var ffmpegPath: String? { LiveFFmpegUpstream.path }

    /// Whether `url` names an HLS playlist (the live sessions' rule).
    static func isHLS(_ url: URL) -> Bool { LiveSessions.isHLS(url) }

    /// Runs ffmpeg on `input` and hands its output to `write` until it ends or `write` throws
    /// (the player went away); ffmpeg is stopped either way.
    static func stream(
        _ input: String, logger: Logger, write: (ByteBuffer) async throws -> Void
    ) async throws {
        guard let ffmpeg = ffmpegPath else {
            throw RemuxError("ffmpeg is not installed; install it (apt-get install ffmpeg) to play HLS channels as TS")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-hide_banner", "-loglevel", "error", "-nostdin", "-i", input, "-map", "0", "-c", "copy", "-f", "mpegts",
            "pipe:1",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // NIO takes its own descriptor: Foundation closes the pipe's when the handle goes.
        let descriptor = dup(output.fileHandleForReading.fileDescriptor)
        guard descriptor >= 0 else { throw RemuxError("cannot read ffmpeg's output") }
        try? output.fileHandleForReading.close()
        let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptor(input: descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, _ in
            for try await chunk in inbound { try await write(chunk) }
        }
        logger.debug("remux ended", metadata: ["status": "\(process.isRunning ? -1 : process.terminationStatus)"])
    }

    struct RemuxError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
