import Foundation
import Logging
import NIOCore
import NIOPosix
import Streaming
import Synchronization
import TunerAPI

/// A live channel as HLS, in one of two ``Format``s: fMP4 segments with AAC sound for browsers and
/// Apple players, or MPEG-TS segments with every track copied for the players an Xtream login feeds
/// (`/live/U/P/ID.m3u8`, what panels serve). One ffmpeg per session reads the channel's session (so
/// the provider's one connection serves it too) and writes a sliding window of two-second segments
/// into a folder of its own, served as they are.
///
/// HLS players have no connection to count: a viewer is an address that asked for the playlist or
/// a segment in the last ten seconds, and the session ends when nobody has asked for a while.
public final class LiveHLSSession: Sendable {
    public let id: String
    public let channelID: Int64
    public let channelName: String
    public let format: Format
    public let startedAt = Date()
    let directory: String
    let settings: LiveSettings
    let logger: Logger
    private let state = Mutex(State())

    struct State {
        var seen: [String: Viewer] = [:]
        var lastRequest = ContinuousClock.now
        var upstreamMeter = LiveRateMeter()
        var downstreamMeter = LiveRateMeter()
        var ended: String?
        var stopRequested: String?
        var task: Task<Void, Never>?
    }

    /// An address that asked for a file of the stream, and which login it played as.
    struct Viewer {
        var first: Date
        var last: ContinuousClock.Instant
        var bytes: Int64
        var user: String?

        /// Whether it asked in the last ``LiveHLSSession/viewerSeconds`` before `now`.
        func isWatching(at now: ContinuousClock.Instant) -> Bool {
            last.duration(to: now) < .seconds(LiveHLSSession.viewerSeconds)
        }
    }

    /// What the segments are and who they are for.
    public enum Format: Sendable, Hashable {
        /// Fragmented MP4 with AAC sound: browsers play neither AC-3 nor MP2, nor MPEG-TS.
        case browser
        /// MPEG-TS segments, every video and audio track copied: what Xtream panels serve, and what
        /// set-top players (TiviMate, IPTV Smarters, VLC) expect of a `.m3u8`.
        case mpegTS

        /// The playlist's file name.
        public var playlistName: String { self == .browser ? "live.m3u8" : "index.m3u8" }
        var segmentExtension: String { self == .browser ? ".m4s" : ".ts" }
        var segmentType: String { self == .browser ? "video/iso.segment" : "video/mp2t" }
        /// The name `info` lists the session under, in `/api/v1/streams`.
        var profileName: String { self == .browser ? "hls" : "hls-ts" }
    }

    /// The playlist's media type (RFC 8216).
    public static let playlistType = "application/vnd.apple.mpegurl"

    /// The playlist's name: a channel's proxy link with this last component plays it as HLS.
    public static let playlistName = Format.browser.playlistName

    /// Whether `name` is one of the files a browser HLS session serves.
    public static func isFileName(_ name: some StringProtocol) -> Bool {
        name == playlistName || name == "init.mp4" || (name.hasPrefix("seg-") && name.hasSuffix(".m4s"))
    }

    /// Whether `name` is a segment name this session's ffmpeg writes: `seg-<digits>` and the
    /// format's extension, nothing else (the name becomes part of a file path).
    func isSegmentName(_ name: String) -> Bool {
        let suffix = format.segmentExtension
        guard name.hasPrefix("seg-"), name.hasSuffix(suffix), name.count <= 30 else { return false }
        let digits = name.dropFirst(4).dropLast(suffix.count)
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `playlist` with `prefix` before every segment URI, for a playlist served at a path whose
    /// folder is not the session's (Xtream's `/live/U/P/ID.m3u8` names segments `ID/seg-N.ts`).
    /// The URIs ffmpeg wrote are relative names; nothing else in the text changes.
    public static func playlist(_ playlist: Data, prefixingURIsWith prefix: String) -> Data {
        let lines = String(decoding: playlist, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let rewritten = lines.map { line -> String in
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { return String(line) }
            return prefix + text
        }
        return Data(rewritten.joined(separator: "\n").utf8)
    }

    /// Seconds a segment lasts; the playlist keeps six.
    static let segmentSeconds = 2
    /// How long an address counts as watching after its last request.
    static let viewerSeconds = 10.0

    init(
        id: String, channelID: Int64, channelName: String, format: Format, directory: String, settings: LiveSettings,
        logger: Logger
    ) {
        self.id = id
        self.channelID = channelID
        self.channelName = channelName
        self.format = format
        self.directory = directory
        self.settings = settings
        var logger = logger
        logger[metadataKey: "session"] = "\(id)"
        self.logger = logger
    }

    static func arguments(directory: String, format: Format = .browser) -> [String] {
        if format == .mpegTS {
            // Every track copied: set-top players decode AC-3 and MP2, and a copy costs no CPU.
            return [
                "-hide_banner", "-loglevel", "warning", "-nostdin", "-analyzeduration", "1500000", "-f", "mpegts",
                "-i", "pipe:0", "-map", "0:v:0?", "-map", "0:a?", "-c", "copy", "-f", "hls", "-hls_time",
                String(segmentSeconds), "-hls_list_size", "6",
                "-hls_flags", "delete_segments+independent_segments+temp_file+omit_endlist",
                "-hls_segment_type", "mpegts", "-hls_segment_filename", directory + "/seg-%d.ts",
                directory + "/" + format.playlistName,
            ]
        }
        return [
            "-hide_banner", "-loglevel", "warning", "-nostdin", "-analyzeduration", "1500000", "-f", "mpegts",
            "-i", "pipe:0", "-map", "0:v:0?", "-map", "0:a:0?", "-c:v", "copy", "-c:a", "aac", "-b:a", "128k",
            "-ac", "2", "-f", "hls", "-hls_time", String(segmentSeconds), "-hls_list_size", "6",
            "-hls_flags", "delete_segments+independent_segments+temp_file+omit_endlist",
            "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
            "-hls_segment_filename", directory + "/seg-%d.m4s", directory + "/live.m3u8",
        ]
    }

    /// Starts ffmpeg on `reader`'s bytes as a task of `work`; `onEnd` runs once when the session
    /// has ended.
    ///
    /// The task is owned by the live engine's `work` (``LiveSessions``), not left unstructured:
    /// one lifecycle with every session, cancelled and awaited by the engine's shutdown. The
    /// handle is kept too, so ``stopAndWait(_:)`` awaits this one alone.
    func start(reader: LiveViewer, work: BackgroundWork, onEnd: @escaping @Sendable (LiveHLSSession) -> Void) {
        let task = work.start { [self] in
            let reason: String
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                reason = try await run(reader)
            } catch {
                reason = "ffmpeg failed: \(error)"
            }
            reader.close()
            state.withLock { $0.ended = $0.ended ?? reason }
            try? FileManager.default.removeItem(atPath: directory)
            logger.info("live HLS session ended", metadata: ["channel": "\(channelID)", "reason": "\(reason)"])
            onEnd(self)
        }
        guard let task else {
            // The engine is shutting down: nothing starts, and the reader leaves its session.
            reader.close()
            state.withLock { $0.ended = $0.ended ?? "the server is shutting down" }
            onEnd(self)
            return
        }
        state.withLock { $0.task = task }
    }

    private func run(_ reader: LiveViewer) async throws -> String {
        guard let ffmpeg = LiveFFmpegUpstream.path else {
            throw LiveUpstreamError("HLS for browsers needs ffmpeg, which is not installed (apt-get install ffmpeg)")
        }
        let input = Pipe()
        let child = try FFmpegChild.start(
            ffmpeg, arguments: Self.arguments(directory: directory, format: format), input: input,
            output: FileHandle.nullDevice,
            logger: logger)
        defer { child.stop() }
        let descriptor = dup(input.fileHandleForWriting.fileDescriptor)
        try? input.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        guard descriptor >= 0 else { throw LiveUpstreamError("cannot write to ffmpeg") }
        let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptor(output: descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { _, outbound in
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    while let parts = await reader.next() {
                        for part in parts {
                            try await outbound.write(part)
                            self.state.withLock { $0.upstreamMeter.add(part.readableBytes, at: .now) }
                        }
                    }
                    return "the channel's stream ended"
                }
                group.addTask { [self] in await watch() }
                let reason = try await group.next() ?? "stopped"
                group.cancelAll()
                return reason
            }
        }
    }

    /// Returns when nobody has asked for a while or the session was stopped.
    private func watch() async -> String {
        let idle = Duration.seconds(settings.lingerSeconds + Double(Self.segmentSeconds * 3))
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            let verdict = state.withLock { state -> String? in
                if let reason = state.stopRequested { return reason }
                if state.lastRequest.duration(to: .now) >= idle { return "no requests for \(idle)" }
                return nil
            }
            if let verdict { return verdict }
        }
        return "stopped"
    }

    func stop(_ reason: String) {
        state.withLock { if $0.stopRequested == nil { $0.stopRequested = reason } }
    }

    func stopAndWait(_ reason: String) async {
        stop(reason)
        await state.withLock { $0.task }?.value
    }

    var hasEnded: Bool { state.withLock { $0.ended != nil || $0.stopRequested != nil } }

    // MARK: - Files

    /// A file of the stream: the format's playlist, `init.mp4` (browser) or `seg-<n>` segments.
    /// The playlist is waited for (ffmpeg writes it after its first segment, a few seconds after
    /// start); nil for any other name or a segment that is gone. `user`: the login the address
    /// plays as, listed with it.
    public func file(
        _ name: String, for address: String, user: String? = nil
    ) async -> (data: Data, contentType: String)? {
        let contentType: String
        let isPlaylist = name == format.playlistName
        if isPlaylist {
            contentType = Self.playlistType
        } else if name == "init.mp4", format == .browser {
            contentType = "video/mp4"
        } else if isSegmentName(name) {
            contentType = format.segmentType
        } else {
            return nil
        }
        let path = directory + "/" + name
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            touch(address, user: user, bytes: 0)
            // Chromium's player fails ("could not parse") on a live playlist of fewer than three
            // segments: it is handed out once it has three, six seconds or so after the start.
            if let data = FileManager.default.contents(atPath: path), !isPlaylist || Self.segmentCount(data) >= 3 {
                touch(address, user: user, bytes: data.count)
                return (data, contentType)
            }
            guard isPlaylist || name == "init.mp4", ContinuousClock.now < deadline, !hasEnded else {
                return nil
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether `address` asked for a file in the last ``viewerSeconds``.
    func isWatching(_ address: String) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.seen[address]?.isWatching(at: now) ?? false
        }
    }

    /// How many addresses that asked in the last ``viewerSeconds`` play as each user.
    var viewersByUser: [String: Int] {
        let now = ContinuousClock.now
        return state.withLock { state in
            var counts: [String: Int] = [:]
            for viewer in state.seen.values where viewer.isWatching(at: now) {
                if let user = viewer.user { counts[user, default: 0] += 1 }
            }
            return counts
        }
    }

    /// How many addresses that asked in the last ``viewerSeconds`` play as `user`.
    func viewers(as user: String) -> Int {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.seen.values.filter { $0.user == user && $0.isWatching(at: now) }.count
        }
    }

    static func segmentCount(_ playlist: Data) -> Int {
        String(decoding: playlist, as: UTF8.self).components(separatedBy: "#EXTINF").count - 1
    }

    private func touch(_ address: String, user: String?, bytes: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.lastRequest = now
            var entry = state.seen[address] ?? Viewer(first: Date(), last: now, bytes: 0, user: user)
            entry.last = now
            if let user { entry.user = user }
            entry.bytes &+= Int64(bytes)
            state.seen[address] = entry
            if bytes > 0 { state.downstreamMeter.add(bytes, at: now) }
        }
    }

    var info: LiveStreamInfo {
        let now = ContinuousClock.now
        return state.withLock { state in
            let viewers = state.seen.filter { $0.value.isWatching(at: now) }
                .sorted { $0.key < $1.key }
                .map {
                    LiveViewerInfo(
                        address: $0.key, user: $0.value.user, outputProfile: nil, joinedAt: $0.value.first,
                        bytes: $0.value.bytes)
                }
            return LiveStreamInfo(
                id: id, channelID: channelID, channelName: channelName, profile: format.profileName,
                upstreamChannelID: channelID,
                sourceID: nil, sourceName: nil, viewers: viewers,
                upstreamBytesPerSecond: state.upstreamMeter.rate(at: now),
                downstreamBytesPerSecond: state.downstreamMeter.rate(at: now),
                upstreamBytes: state.upstreamMeter.total, downstreamBytes: state.downstreamMeter.total,
                startedAt: startedAt, failovers: [], resyncs: 0, continuityErrors: 0)
        }
    }
}
