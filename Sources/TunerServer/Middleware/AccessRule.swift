import HTTPTypes
import TunerApp

/// The scope a request needs, decided on the normalised path (``RequestPath``). It fails closed:
/// a request that is not a look (`GET`, `HEAD`, `OPTIONS`, a WebSocket upgrade) and not named
/// below needs `manage`, so a new action route is covered without doing anything.
enum AccessRule {
    /// Keys, Xtream logins, output profiles (which show their access keys) and backups (which
    /// hold every secret): the owner's.
    static let adminPrefixes: [[String]] = [
        ["api", "v1", "keys"], ["api", "v1", "users"], ["api", "v1", "outputs"], ["api", "v1", "backups"],
        ["api", "v1", "logos"],
    ]

    static func scope(for method: HTTPRequest.Method, path: RequestPath) -> AccessScope {
        if adminPrefixes.contains(where: { path.starts(with: $0) }) { return .admin }
        let segments = path.segments
        if RequestGuardMiddleware.isSafe(method) {
            return isPlayLink(segments) ? .play : .read
        }
        // Signing out is anyone's who is signed in. A proxy URL for any URL makes the server fetch
        // wherever its fetch policy allows and hand back the answer: `manage` (a `play` key gets
        // links for catalog items only, through the paths of `isPlayLink`).
        if path.text == RequestGuardMiddleware.sessionPath { return .read }
        return .manage
    }

    /// `/api/v1/channels/{id}/play`, `…/catchup`, `…/timeshift…`, `/api/v1/episodes/{id}/play`
    /// and `/api/v1/recordings/{id}/file`: links to watch (a recording's file is the film itself).
    static func isPlayLink(_ segments: [String]) -> Bool {
        // A channel's time-shift window and what is under it (its playlist, segments, stream).
        if segments.count >= 5, segments[0] == "api", segments[1] == "v1", segments[2] == "channels",
            segments[4] == "timeshift"
        {
            return true
        }
        guard segments.count == 5, segments[0] == "api", segments[1] == "v1" else { return false }
        switch (segments[2], segments[4]) {
        case ("channels", "play"), ("channels", "catchup"), ("episodes", "play"), ("recordings", "file"): return true
        default: return false
        }
    }
}
