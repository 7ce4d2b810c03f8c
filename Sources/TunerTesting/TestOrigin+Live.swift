import Foundation
import NIOCore

/// A simulated live HLS stream: `GET /live/<name>/index.m3u8` is a sliding-window media playlist
/// (no `EXT-X-ENDLIST`) whose media sequence advances by one every target duration of wall-clock
/// time, and `GET /live/<name>/seg<N>.ts` serves absolute segment N (Range, ETag and the query
/// faults of `/static` apply). Segment bytes are copied from a real VOD's segments, looped, so
/// ffmpeg and browsers can decode and follow the stream.
extension TestOrigin {
    /// Starts serving the segments of the VOD media playlist at `playlist` (an absolute path; for
    /// example `HLSFixtures.liveSourcePath`) as the live stream `name`, with `window` segments per
    /// playlist. The clock starts now, but the stream pretends to have started `window` segments
    /// earlier, so the first playlist already lists a full window from media sequence 0. After the
    /// source's last segment it loops to the first, with `EXT-X-DISCONTINUITY`. Calling it again
    /// for a name restarts that stream.
    public func serveLive(playlist: String, name: String = "live", window: Int = 4) throws {
        guard !name.isEmpty, !name.contains("/") else { throw LiveStreamError.invalidName(name) }
        let segments = try LiveStream.segments(ofPlaylistAt: playlist)
        let longest = segments.map(\.duration).max() ?? 1
        state.liveStreams.set(
            LiveStream(
                name: name,
                segments: segments,
                window: max(1, window),
                targetDuration: max(1, Int(longest.rounded())),
                started: .now(),
                startedWallClock: Date()
            ))
    }

    /// `serveLive(playlist:name:window:)` with the live source of generated fixtures.
    public func serveLive(_ fixtures: HLSFixtures, name: String = "live", window: Int = 4) throws {
        try serveLive(playlist: fixtures.liveSourcePath, name: name, window: window)
    }

    /// Stops serving the live stream `name` (its URLs answer 404 from now on).
    public func stopLive(name: String = "live") {
        state.liveStreams.remove(name)
    }

    /// The path of the live stream's playlist: `/live/<name>/index.m3u8`.
    public func livePlaylistPath(name: String = "live") -> String {
        "/live/\(name)/index.m3u8"
    }

    /// The path of absolute segment `number` of the live stream: `/live/<name>/seg<N>.ts`.
    public func liveSegmentPath(name: String = "live", number: Int) -> String {
        "/live/\(name)/seg\(number).ts"
    }

    /// How many requests the live playlist has had since start or `resetCounters()`.
    public func livePlaylistRequests(name: String = "live") -> Int {
        requests(path: livePlaylistPath(name: name))
    }

    /// The media sequence number the live playlist has right now, or nil for an unknown stream.
    public func liveMediaSequence(name: String = "live") -> Int? {
        state.liveStreams.stream(name)?.mediaSequence(at: .now())
    }

    /// The target duration of the live stream, in seconds, or nil for an unknown stream.
    public func liveTargetDuration(name: String = "live") -> Int? {
        state.liveStreams.stream(name)?.targetDuration
    }

    /// Moves the live stream on by `segments` media sequence numbers at once, as if that much time
    /// had passed, so a test can see a new playlist without waiting for the clock.
    public func advanceLive(name: String = "live", segments: Int = 1) {
        state.liveStreams.skip(name, slots: segments)
    }
}
