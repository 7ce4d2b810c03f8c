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

/// Xtream's catch-up path `/timeshift/USER/PASS/MINUTES/YYYY-MM-DD:HH-MM/<id>.ts`.
extension XtreamPanel {
    /// The login a catch-up path names, checked, and the past span of a channel in its profiles it
    /// asks for: from the channel's provider, or from its local catch-up window. `start` is in
    /// UTC (the time zone `player_api.php` announces); `minutes` from 1 to a week.
    public func catchup(
        username: String, password: String, minutes: String, start: String, file: String, address: String
    ) async throws -> (user: OutputUser, playback: Player.CatchupPlayback) {
        let user = try await requireLogin(username, password, address: address)
        guard let id = Int64(file.prefix { $0 != "." }), file.prefix(while: { $0 != "." }).count <= 18 else {
            throw FeatureError(.notFound, "'\(file.prefix(40))' is not a stream")
        }
        guard minutes.count <= 5, minutes.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int64(minutes),
            (1...7 * 1440).contains(length)
        else {
            throw FeatureError(.invalid, "the duration is whole minutes, from 1 to \(7 * 1440)")
        }
        guard let from = Self.catchupStart(start) else {
            throw FeatureError(.invalid, "the start is YYYY-MM-DD:HH-MM (UTC)")
        }
        // Checks that the login's profiles hold the channel.
        _ = try await outputs.entry(id, of: user)
        let playback = try await outputs.player.catchupPlayback(
            itemID: id, target: .span(start: from, end: from + length * 60))
        return (user, playback)
    }

    /// `YYYY-MM-DD:HH-MM` in UTC, in seconds since 1970; nil unless every field is in range.
    static func catchupStart(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == ":" }).map(String.init)
        guard text.utf8.count == 16, parts.count == 5,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), let hour = Int(parts[3]),
            let minute = Int(parts[4]), (1970...2100).contains(year), (1...12).contains(month), (1...31).contains(day),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return Int64(date.timeIntervalSince1970)
    }
}
