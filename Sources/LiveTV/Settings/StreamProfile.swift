/// How a live channel reaches a player.
public enum StreamProfile: String, Sendable, Codable, CaseIterable {
    /// The provider's bytes as they come (MPEG-TS).
    case direct
    /// ffmpeg copies the streams into a fresh MPEG-TS (`-c copy`): clean timestamps and tables
    /// for fussy players, and an HLS channel as TS.
    case remux
    /// ffmpeg re-encodes with the user's arguments (``LiveSettings/transcodeArguments``), for
    /// small screens and slow links.
    case transcode

    /// Whether the profile runs an ffmpeg per session.
    public var usesFFmpeg: Bool { self != .direct }
}
