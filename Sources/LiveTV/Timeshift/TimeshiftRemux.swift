import Foundation
import Logging
import NIOCore

/// A time-shift window through ffmpeg for browsers: the video copied, the sound made AAC, as
/// fragmented MP4 that a `<video>` plays as it arrives (a fragment a second, so the picture starts
/// within one). No re-encoding of the picture: one ffmpeg costs a few percent of a core.
public enum TimeshiftRemux {
    static let arguments = [
        "-hide_banner", "-loglevel", "warning", "-nostdin", "-analyzeduration", "1000000", "-f", "mpegts",
        "-i", "pipe:0", "-map", "0:v:0?", "-map", "0:a:0?", "-c:v", "copy", "-c:a", "aac", "-b:a", "128k",
        "-ac", "2", "-f", "mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-frag_duration",
        "1000000", "pipe:1",
    ]

    /// Feeds `reader`'s bytes to ffmpeg and hands its MP4 to `deliver` until either ends.
    public static func fragmentedMP4(
        from reader: TimeshiftReader, deliver: (ByteBuffer) async throws -> Void, logger: Logger
    ) async throws {
        guard let ffmpeg = LiveFFmpegUpstream.path else {
            throw LiveUpstreamError(
                "time-shift for browsers needs ffmpeg, which is not installed (apt-get install ffmpeg)")
        }
        let source = reader
        try await LiveFFmpegUpstream.pipe(
            ffmpeg, arguments: arguments,
            feed: { write in
                var reader = source
                while let chunk = try await reader.next() { try await write(chunk) }
            }, deliver: deliver, logger: logger)
    }
}
