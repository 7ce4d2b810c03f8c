import NIOCore

/// One place a live session can read a stream from: a channel's URL at its provider (with the
/// provider's headers), or an ffmpeg child. `run` delivers bytes until the upstream ends
/// (returns) or fails (throws); the session cancels it to switch or stop.
struct LiveUpstream: Sendable {
    /// The channel the bytes are of (the session's own, or an alternative).
    var channelID: Int64?
    /// The source (account) whose connection it uses; counted against the source's limit.
    var sourceID: Int64?
    var sourceName: String?
    /// For logs and errors: never a URL (which may hold credentials).
    var label: String
    var run: @Sendable (_ deliver: @escaping @Sendable (ByteBuffer) -> Void) async throws -> Void
}

/// Why an upstream could not be used, in words for the streams list and the log.
struct LiveUpstreamError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
