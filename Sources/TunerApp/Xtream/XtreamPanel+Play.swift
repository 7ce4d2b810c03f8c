import Foundation
import Outputs
import Streaming

/// The stream paths `/live|movie|series/USER/PASS/<id>.<ext>`: which login, and what it plays.
extension XtreamPanel {
    /// What a stream path plays.
    public enum Play: Sendable {
        /// A live channel as MPEG-TS HLS (`<id>.m3u8`): a playlist of the channel's HLS session.
        case liveHLS(channelID: Int64)
        /// A live channel as MPEG-TS, through its live session.
        case live(channelID: Int64)
        /// A film or an episode, through the proxy; count it in ``open`` while its bytes flow.
        case link(StreamLink)
        /// A recording's file on this machine, served with Range requests.
        case recording(path: String)
    }

    /// The login a stream path names, checked, and what `file` (`<id>.<ext>`) plays for it:
    /// `kind` is the path's first segment (`live`, `movie` or `series`; a series' file names an
    /// episode). A live channel must be in the login's profiles.
    public func play(
        kind: String, file: String, username: String, password: String, address: String
    ) async throws -> (user: OutputUser, play: Play) {
        let user = try await requireLogin(username, password, address: address)
        guard let id = Int64(file.prefix { $0 != "." }) else {
            throw FeatureError(.notFound, "'\(file.prefix(40))' is not a stream")
        }
        if kind == "live" {
            // Checks that the user's profiles hold the channel; its session plays it.
            _ = try await outputs.entry(id, of: user)
            return (user, file.lowercased().hasSuffix(".m3u8") ? .liveHLS(channelID: id) : .live(channelID: id))
        }
        if let dvr, let (recording, part) = XtreamRecording.parse(streamID: id) {
            // Only what the login is shown plays: finished recordings, not one still being written.
            guard try await dvr.xtreamRecordings().contains(where: { $0.streamID == id }) else {
                throw FeatureError(.notFound, "no recording \(id)")
            }
            return (user, .recording(path: try await dvr.filePath(id: recording, part: part)))
        }
        return (user, .link(try await outputs.xtreamStream(id, episode: kind == "series", of: user)))
    }
}
