/// How live sessions behave; read from ``TunerConfiguration``.
public struct LiveSettings: Sendable, Equatable {
    /// Bytes of recent stream each session keeps for joining viewers and slow ones.
    public var ringBytes: Int = 4 << 20
    /// Seconds a session stays open after its last viewer left (a player that zaps back finds it).
    public var lingerSeconds: Double = 5
    /// Seconds without a byte before the upstream counts as stalled.
    public var stallSeconds: Double = 5
    /// Seconds of bytes without progress (no new PCR) before the upstream counts as dead.
    public var progressSeconds: Double = 8
    /// Continuity errors within ``progressSeconds`` that make the upstream count as corrupt.
    public var continuityErrorLimit: Int = 200
    /// Seconds to wait for the upstream's answer before trying the next alternative.
    public var connectSeconds: Double = 10
    /// Whether a new session may stop the lowest-priority one when every account is in use.
    public var preemptWhenFull = false
    /// The ffmpeg arguments of the transcode profile, between the input and the MPEG-TS output.
    public var transcodeArguments: [String] = [
        "-map", "0:v:0?", "-map", "0:a:0?", "-c:v", "libx264", "-preset", "veryfast", "-vf", "scale=-2:720",
        "-b:v", "3M", "-c:a", "aac", "-b:a", "128k",
    ]
    /// The seconds a full account's channel asks players to wait before trying again.
    public var retryAfterSeconds = 10
    /// Which channels keep a time-shift window, and how much of it.
    public var timeshift = TimeshiftSettings()

    public init() {}
}
